// params: customer, deliveryId, conditionId, name, priority, isActive, document, write
// Stores a delivery: `document` is the JSON of the Delivery exactly as the API returns it; the other properties
// repeat a few of its fields so that Neo4j Browser shows them and lists can be ordered. `lastWrite` names the store
// call (see delivery.written-by.cypher).
CREATE (:Delivery {customer: $customer, deliveryId: $deliveryId, conditionId: $conditionId, name: $name,
                   priority: $priority, isActive: $isActive, document: $document, lastWrite: $write})
