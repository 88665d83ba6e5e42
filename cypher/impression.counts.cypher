// params: customer, ids, day, deliveryId
// A person's impressions: for each delivery (only `deliveryId` when it is not null), the sum of the counts
// recorded against `ids`, in all and on the calendar `day`. One index seek per ID (impression_id).
UNWIND $ids AS wanted
MATCH (impressions:ImpressionCount {customer: $customer, type: wanted.type, value: wanted.id})
WHERE $deliveryId IS NULL OR impressions.deliveryId = $deliveryId
RETURN impressions.deliveryId AS deliveryId, sum(impressions.count) AS total,
       sum(CASE WHEN impressions.day = $day THEN impressions.count ELSE 0 END) AS today
