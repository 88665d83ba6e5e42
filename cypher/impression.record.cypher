// params: customer, deliveryId, type, value, day, platform, key, answer, receivedAt, write
// Counts one display of a delivery (locked by impression.lock in the same transaction, and checked against
// its caps): the delivery's counts, the impressions recorded against the ID (type, value) on the calendar `day`,
// and with an idempotency key the answer to give its repeats, with that ID, by which an erase finds it.
// `countedBy` and `countedAnswer` name the store call and its answer (see impression.counted-by.cypher).
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
SET delivery.deliveryCount = coalesce(delivery.deliveryCount, 0) + 1,
    delivery.iphoneCount = coalesce(delivery.iphoneCount, 0) + CASE $platform WHEN 'ios' THEN 1 ELSE 0 END,
    delivery.androidCount = coalesce(delivery.androidCount, 0) + CASE $platform WHEN 'android' THEN 1 ELSE 0 END,
    delivery.countedBy = $write,
    delivery.countedAnswer = $answer
MERGE (impressions:ImpressionCount {customer: $customer, deliveryId: $deliveryId, type: $type, value: $value, day: $day})
  ON CREATE SET impressions.count = 1
  ON MATCH SET impressions.count = impressions.count + 1
FOREACH (key IN CASE WHEN $key IS NULL THEN [] ELSE [$key] END |
  CREATE (:ImpressionKey {customer: $customer, deliveryId: $deliveryId, key: key, answer: $answer, createdAt: datetime($receivedAt),
                          type: $type, value: $value})
)
