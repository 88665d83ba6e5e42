// params:
// Lists the schemas of a customer.
CREATE INDEX schema_customer IF NOT EXISTS
FOR (schema:Schema) ON (schema.customer)
