// params: customer, schemaId
// Deletes a schema vertex and its declarations (the IdTypes left undeclared go with idtype.delete-orphans).
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
DETACH DELETE schema
