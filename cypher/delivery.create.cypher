// params: customer, deliveryId, conditionId, name, priority, isActive, document
// Stores a delivery: `document` is the JSON of the Delivery exactly as the API returns it; the other properties
// repeat a few of its fields so that Neo4j Browser shows them and lists can be ordered.
CREATE (:Delivery {customer: $customer, deliveryId: $deliveryId, conditionId: $conditionId, name: $name,
                   priority: $priority, isActive: $isActive, document: $document})
