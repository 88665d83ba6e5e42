// params: customer, schemaId
// Deletes a schema vertex, its declarations and its guards (the IdTypes left undeclared go with
// idtype.delete-orphans). Not DETACH DELETE: should a node's IN_SCHEMA relationship exist after all, Neo4j
// refuses to delete the vertex (a constraint violation at commit, reported as schema_in_use) instead of silently
// cutting the node off.
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
OPTIONAL MATCH (schema)-[declares:DECLARES]->(:IdType)
DELETE declares
WITH DISTINCT schema
OPTIONAL MATCH (guard:SchemaGuard {customer: $customer, schemaId: $schemaId})
DELETE guard
WITH DISTINCT schema
DELETE schema
