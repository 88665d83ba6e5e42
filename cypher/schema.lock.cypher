// params: customer, schemaId
// Creates the schema vertex if it is new and takes its write lock for the rest of the transaction, so that
// concurrent puts of one schema run one after the other. The SET reads the property it writes, and for such a
// direct dependency Cypher takes the write lock before reading (Operations Manual, "Concurrent data access",
// lost updates); `created` is read after the lock.
MERGE (schema:Schema {customer: $customer, schemaId: $schemaId})
  ON CREATE SET schema.revision = 0
SET schema.revision = schema.revision + 1
RETURN schema.revision = 1 AS created
