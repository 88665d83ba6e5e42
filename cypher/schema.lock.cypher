// params: customer, schemaId, write
// Creates the schema vertex if it is new and takes its write lock for the rest of the transaction, so that
// concurrent puts of one schema run one after the other: writing a property takes the vertex's exclusive lock,
// held until commit. The write is `lastWrite`, the id of the store call (see schema.last-write.cypher), not a
// counter that reads what it writes: on Neo4j 5.26 such a read-dependent SET made the puts queued on this lock
// fail with DeadlockDetected once the holder changed the schema's DECLARES relationships (see node.lock.cypher).
// Of concurrent first puts MERGE lets one create the vertex (the uniqueness constraint locks its key), and
// `createdBy` names that call for good: `created` does not depend on when it is read.
MERGE (schema:Schema {customer: $customer, schemaId: $schemaId})
  ON CREATE SET schema.createdBy = $write
SET schema.lastWrite = $write
RETURN schema.createdBy = $write AS created
