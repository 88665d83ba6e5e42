// params: customer, deliveryId, conditionId, name, priority, isActive, maxDeliveryCount, maxTotalCount, maxTotalCountPerDay, document, write
// Stores a delivery: `document` is the JSON of the Delivery exactly as the API returns it; the other properties
// repeat a few of its fields so that Neo4j Browser shows them and lists can be ordered, and its caps, which
// impression.count.cypher checks. `lastWrite` names the store call (see delivery.written-by.cypher).
CREATE (:Delivery {customer: $customer, deliveryId: $deliveryId, conditionId: $conditionId, name: $name,
                   priority: $priority, isActive: $isActive, maxDeliveryCount: $maxDeliveryCount,
                   maxTotalCount: $maxTotalCount, maxTotalCountPerDay: $maxTotalCountPerDay, document: $document,
                   lastWrite: $write})
