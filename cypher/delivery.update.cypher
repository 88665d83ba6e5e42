// params: customer, deliveryId, name, priority, isActive, maxDeliveryCount, maxTotalCount, maxTotalCountPerDay, document
// Replaces a delivery's document and the properties that repeat its fields (delivery.create.cypher) (locked by
// delivery.lock in the same transaction).
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
SET delivery.name = $name, delivery.priority = $priority, delivery.isActive = $isActive,
    delivery.maxDeliveryCount = $maxDeliveryCount, delivery.maxTotalCount = $maxTotalCount,
    delivery.maxTotalCountPerDay = $maxTotalCountPerDay, delivery.document = $document
