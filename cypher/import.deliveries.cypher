// params: customer, deliveries, write
// An import batch's deliveries, each with its ids and counts as exported: the properties delivery.create.cypher
// sets, and the live counts beside them that impression.count.cypher keeps (`deliveryCount`, `iphoneCount`,
// `androidCount`). Then the customer's catalogue version is raised, as every delivery write does last
// (neo4j-deliveries.ts), so that no process weighs a catalogue it kept from before.
UNWIND $deliveries AS imported
CREATE (:Delivery {customer: $customer, deliveryId: imported.deliveryId, conditionId: imported.conditionId,
                   name: imported.name, priority: imported.priority, isActive: imported.isActive,
                   maxDeliveryCount: imported.maxDeliveryCount, maxTotalCount: imported.maxTotalCount,
                   maxTotalCountPerDay: imported.maxTotalCountPerDay, document: imported.document,
                   deliveryCount: imported.deliveryCount, iphoneCount: imported.iphoneCount,
                   androidCount: imported.androidCount, lastWrite: $write})
WITH count(*) AS created
MERGE (catalogue:Sequence {customer: $customer, name: 'catalogue'})
  ON CREATE SET catalogue.last = 0
SET catalogue.last = catalogue.last + 1
