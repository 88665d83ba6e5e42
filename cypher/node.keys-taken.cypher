// params: customer, keys
// Which of `keys` ({line, schema, keyType, keyId}) a node has already, as the lines naming them: before
// node.create-many, so that a create of a taken key is refused as its own line's node_exists.
//
// The hint keeps one seek of the key's unique index per line: unhinted, the planner scans the (customer, schema)
// index for every line, so a bulk load slowed as the graph grew.
UNWIND $keys AS key
MATCH (node:IdNode {customer: $customer, schema: key.schema, keyType: key.keyType, keyId: key.keyId})
USING INDEX node:IdNode(customer, schema, keyType, keyId)
RETURN key.line AS line
