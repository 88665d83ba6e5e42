// params: customer, schema, keyType, keyId
// Which store call wrote the node last (node.create and node.lock set `lastWrite` in the same transaction as the
// write); no row when no node has this key. A write whose commit reply was lost asks this before running again.
MATCH (node:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
RETURN node.lastWrite AS lastWrite
