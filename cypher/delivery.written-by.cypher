// params: customer, write
// The delivery the store call `write` created or replaced last (delivery.create and delivery.lock set
// `lastWrite`), as its JSON document; no row when that call committed nothing here. A write whose commit reply
// was lost asks this before running again. It reads the customer's deliveries (one index seek, then a filter):
// it only runs then, which is rare.
MATCH (delivery:Delivery {customer: $customer})
WHERE delivery.lastWrite = $write
RETURN delivery.document AS document, coalesce(delivery.deliveryCount, 0) AS deliveryCount,
       coalesce(delivery.iphoneCount, 0) AS iphoneCount, coalesce(delivery.androidCount, 0) AS androidCount
