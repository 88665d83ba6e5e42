// params: customer, deliveryId, limit
// Up to `limit` impression counts of a deleted delivery (delivery.next-deleted.cypher), through the
// impression_delivery index: one batch of a sweep, so that no transaction holds a delivery's millions.
MATCH (impressions:ImpressionCount {customer: $customer, deliveryId: $deliveryId})
WITH impressions
LIMIT $limit
DELETE impressions
RETURN count(*) AS deleted
