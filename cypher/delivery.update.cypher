// params: customer, deliveryId, name, priority, isActive, document
// Replaces a delivery's document (locked by delivery.lock in the same transaction).
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
SET delivery.name = $name, delivery.priority = $priority, delivery.isActive = $isActive, delivery.document = $document
