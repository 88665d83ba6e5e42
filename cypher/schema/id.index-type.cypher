// params:
// Finds a customer's IDs of one type (does a schema still hold a type; analyst queries).
CREATE INDEX id_customer_type IF NOT EXISTS
FOR (id:Id) ON (id.customer, id.type)
