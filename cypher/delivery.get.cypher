// params: customer, deliveryId
// One delivery of the customer, as its JSON document.
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
RETURN delivery.document AS document
