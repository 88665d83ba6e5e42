// params: customer, schemaId
// Locks the schema about to be deleted and says whether nodes of it still exist.
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
SET schema.revision = coalesce(schema.revision, 0) + 1
RETURN EXISTS { MATCH (:IdNode {customer: $customer, schema: $schemaId}) } AS inUse
