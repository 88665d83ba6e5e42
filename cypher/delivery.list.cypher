// params: customer, offset, limit
// One page of the customer's deliveries in delivery_id order, each with its live counts, and how many there are.
// Both come from the one collected list, so the page and the total agree even while another transaction writes.
MATCH (delivery:Delivery {customer: $customer})
WITH delivery
ORDER BY delivery.deliveryId
WITH collect(delivery) AS deliveries
RETURN size(deliveries) AS total,
       [delivery IN deliveries[$offset..($offset + $limit)] | {
         document: delivery.document, deliveryCount: coalesce(delivery.deliveryCount, 0),
         iphoneCount: coalesce(delivery.iphoneCount, 0), androidCount: coalesce(delivery.androidCount, 0)
       }] AS items
