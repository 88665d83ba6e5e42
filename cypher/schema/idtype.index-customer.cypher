// params:
// Finds the ID types (and so the secure ones) of a customer.
CREATE INDEX idtype_customer IF NOT EXISTS
FOR (idType:IdType) ON (idType.customer)
