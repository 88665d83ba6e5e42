// params:
// Drops the plain index on (customer, deliveryId) of earlier versions: delivery.unique-customer-id puts a
// constraint on the same properties, whose own index lists a customer's deliveries, and Neo4j refuses a
// constraint beside an index of the same schema.
DROP INDEX delivery_customer IF EXISTS
