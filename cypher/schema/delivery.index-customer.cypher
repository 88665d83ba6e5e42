// params:
// Lists the deliveries of a customer in delivery_id order.
CREATE INDEX delivery_customer IF NOT EXISTS
FOR (delivery:Delivery) ON (delivery.customer, delivery.deliveryId)
