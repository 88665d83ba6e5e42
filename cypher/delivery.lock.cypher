// params: customer, deliveryId, write
// Locks a delivery about to be replaced (direct dependency: the lock is taken before reading) and returns its
// document as committed; no row when the customer has no such delivery. `lastWrite` names the store call.
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
SET delivery.revision = coalesce(delivery.revision, 0) + 1, delivery.lastWrite = $write
// A delete that committed while this waited for the lock leaves the node without properties: no such delivery now.
WITH delivery WHERE delivery.document IS NOT NULL
RETURN delivery.document AS document, coalesce(delivery.deliveryCount, 0) AS deliveryCount,
       coalesce(delivery.iphoneCount, 0) AS iphoneCount, coalesce(delivery.androidCount, 0) AS androidCount
