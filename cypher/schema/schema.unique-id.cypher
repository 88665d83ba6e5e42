// params:
// One Schema vertex per schema id of a customer.
CREATE CONSTRAINT schema_id_unique IF NOT EXISTS
FOR (schema:Schema) REQUIRE (schema.customer, schema.schemaId) IS UNIQUE
