// params: customer, schema, keyType, keyId
// The IDs a node holds, and its element id; no row when the node does not exist. (Sorted by the caller, in
// code-point order.) A delete runs it after node.lock, in a statement of its own, and checks that the node it
// finds is the one it locked.
MATCH (node:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
RETURN elementId(node) AS node, [(node)-[:LINKED]->(id:Id) | {type: id.type, id: id.value}] AS ids
