// params:
// A deleted delivery is recorded once (delivery.delete.cypher); its index finds it when its sweep ends
// (delivery.forget-deleted.cypher).
CREATE CONSTRAINT deleted_delivery_unique IF NOT EXISTS
FOR (deleted:DeletedDelivery) REQUIRE (deleted.customer, deleted.deliveryId) IS UNIQUE
