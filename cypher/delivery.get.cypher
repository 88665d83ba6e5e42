// params: customer, deliveryId
// One delivery of the customer, as its JSON document and its live counts (impression.count.cypher keeps them;
// the counts in the document are those it was written with).
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
RETURN delivery.document AS document, coalesce(delivery.deliveryCount, 0) AS deliveryCount,
       coalesce(delivery.iphoneCount, 0) AS iphoneCount, coalesce(delivery.androidCount, 0) AS androidCount
