// params: customer, deliveryId, limit
// Up to `limit` idempotency keys of a deleted delivery (delivery.next-deleted.cypher), through the
// impression_key_unique constraint's index, once its impression counts are gone.
MATCH (key:ImpressionKey {customer: $customer, deliveryId: $deliveryId})
WITH key
LIMIT $limit
DELETE key
RETURN count(*) AS deleted
