// params: customer, deliveryId
// A delivery's impressions and idempotency keys, deleted with it (after delivery.delete, in its transaction).
OPTIONAL MATCH (impressions:ImpressionCount {customer: $customer, deliveryId: $deliveryId})
WITH collect(impressions) AS counted
OPTIONAL MATCH (key:ImpressionKey {customer: $customer, deliveryId: $deliveryId})
WITH counted, collect(key) AS keys
FOREACH (vertex IN counted + keys | DELETE vertex)
