// params: customer, schema, keyType, keyId
// The IDs a node holds; no row when the node does not exist. (Sorted by the caller, in code-point order.)
MATCH (node:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
RETURN [(node)-[:LINKED]->(id:Id) | {type: id.type, id: id.value}] AS ids
