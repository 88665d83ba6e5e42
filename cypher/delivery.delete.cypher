// params: customer, deliveryId
// Deletes a delivery of the customer; `deleted` is 0 when there is none. The lock comes first, so that of two
// concurrent deletes the second finds nothing.
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
SET delivery.revision = coalesce(delivery.revision, 0) + 1
WITH delivery
DETACH DELETE delivery
RETURN count(*) AS deleted
