// params:
// A schema's guards, one per stripe (see schema.guard.cypher): MERGE creates each once.
CREATE CONSTRAINT schemaguard_stripe_unique IF NOT EXISTS
FOR (guard:SchemaGuard) REQUIRE (guard.customer, guard.schemaId, guard.stripe) IS UNIQUE
