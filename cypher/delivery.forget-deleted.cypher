// params: customer, deliveryId
// Ends the sweep of a deleted delivery once none of its impressions and idempotency keys are left.
MATCH (deleted:DeletedDelivery {customer: $customer, deliveryId: $deliveryId})
DELETE deleted
RETURN count(*) AS deleted
