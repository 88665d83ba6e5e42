// params: customer, deliveryId, document, maxDeliveryCount, maxTotalCount, maxTotalCountPerDay
// Gives a delivery an earlier version stored without its caps as properties (delivery.create.cypher) the caps of its
// `document`, which the caller read from it: when impression.count.cypher finds them missing. Only while the
// delivery still has that document and no caps, so that a replacement that committed meanwhile keeps its own.
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
WHERE delivery.document = $document AND delivery.maxDeliveryCount IS NULL
SET delivery.maxDeliveryCount = $maxDeliveryCount, delivery.maxTotalCount = $maxTotalCount,
    delivery.maxTotalCountPerDay = $maxTotalCountPerDay
