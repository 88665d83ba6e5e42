// params: customer, schemaId
// Locks the schema about to be deleted and says whether nodes of it still exist. The SET takes the schema's write
// lock first, which waits for every node creation in flight in this schema (each holds a lock on the schema
// vertex through its IN_SCHEMA relationship until it commits; see node.create.cypher); the check after it then
// sees those nodes, and later creations wait for this transaction and find the schema gone.
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
SET schema.revision = coalesce(schema.revision, 0) + 1
RETURN EXISTS { MATCH (:IdNode {customer: $customer, schema: $schemaId}) } AS inUse
