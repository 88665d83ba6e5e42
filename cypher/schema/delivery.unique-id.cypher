// params:
// Delivery ids come from one sequence for all customers and are unique.
CREATE CONSTRAINT delivery_id_unique IF NOT EXISTS
FOR (delivery:Delivery) REQUIRE delivery.deliveryId IS UNIQUE
