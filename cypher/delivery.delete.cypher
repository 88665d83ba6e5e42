// params: customer, deliveryId
// Deletes a delivery of the customer; `deleted` is 0 when there is none. The lock comes first, so that of two
// concurrent deletes the second finds nothing. Its impressions and idempotency keys stay, unread, until the sweep
// deletes them in batches (delivery.next-deleted.cypher): the :DeletedDelivery vertex records that they are left.
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
SET delivery.revision = coalesce(delivery.revision, 0) + 1
// A delete that committed while this waited for the lock leaves the node without properties: nothing to delete.
WITH delivery WHERE delivery.document IS NOT NULL
DETACH DELETE delivery
CREATE (:DeletedDelivery {customer: $customer, deliveryId: $deliveryId})
RETURN count(*) AS deleted
