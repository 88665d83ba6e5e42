// params: customer, keys
// Which of `keys` ({line, schema, keyType, keyId}) a node has already, as the lines naming them: before
// node.create-many, so that a create of a taken key is refused as its own line's node_exists.
UNWIND $keys AS key
MATCH (node:IdNode {customer: $customer, schema: key.schema, keyType: key.keyType, keyId: key.keyId})
RETURN key.line AS line
