// params: customer, keys, write
// node.lock.cypher for a _bulk batch's consecutive inserts, upserts, ID removals or deletes (lockMany in
// src/store/neo4j/neo4j-nodes.ts): finds each of `keys` ({line, schema, keyType, keyId}) and takes its node's write
// lock, in line order. Answers the line and element id of each node found; none for a key no node has.
UNWIND $keys AS key
MATCH (node:IdNode {customer: $customer, schema: key.schema, keyType: key.keyType, keyId: key.keyId})
SET node.lastWrite = $write
RETURN key.line AS line, elementId(node) AS node
