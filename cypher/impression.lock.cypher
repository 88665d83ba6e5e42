// params: customer, deliveryId, key, write
// Starts an impression: takes the delivery's write lock (the SET writes a value no other call writes, so the
// lock is taken before anything is read), then reads the delivery as committed with its counts, and the answer
// stored with the idempotency key `key` (null when it is null or was not used). Every impression of a delivery
// takes this lock first: they are applied one at a time, and each reads what the one before it committed, which
// is what keeps the caps exact. No row when the customer has no such delivery.
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
SET delivery.impressionLock = $write
// A delete that committed while this waited for the lock leaves the node without properties: no such delivery now.
WITH delivery WHERE delivery.document IS NOT NULL
OPTIONAL MATCH (earlier:ImpressionKey {customer: $customer, deliveryId: $deliveryId, key: $key})
RETURN delivery.document AS document, coalesce(delivery.deliveryCount, 0) AS deliveryCount,
       coalesce(delivery.iphoneCount, 0) AS iphoneCount, coalesce(delivery.androidCount, 0) AS androidCount,
       earlier.answer AS answer
