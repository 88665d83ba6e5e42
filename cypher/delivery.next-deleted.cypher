// params: write
// The sweep of what deleted deliveries left: one deleted delivery whose impressions or idempotency keys may be
// left, locked first (the SET writes a value no other call writes), so that two sweeps take turns on it and the
// second reads what the first committed. No row when none is left. When another sweep finished this one (and
// deleted its vertex) while this one waited for the lock, Neo4j reads its properties as null: `customer` is then
// null, and the caller asks again.
MATCH (deleted:DeletedDelivery)
WITH deleted
LIMIT 1
SET deleted.sweptBy = $write
RETURN deleted.customer AS customer, deleted.deliveryId AS deliveryId
