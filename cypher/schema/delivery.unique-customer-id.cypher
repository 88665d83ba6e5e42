// params:
// Delivery ids are numbered per customer: unique within a customer. Its index also lists a customer's deliveries
// in delivery_id order.
CREATE CONSTRAINT delivery_customer_id_unique IF NOT EXISTS
FOR (delivery:Delivery) REQUIRE (delivery.customer, delivery.deliveryId) IS UNIQUE
