// params: customer, schema, keyType, keyId, write
// Finds a node by its key and takes its write lock for the rest of the transaction: writing a property takes the
// node's exclusive lock, held until commit. Every change to a node starts here, so changes to one node run one
// after the other, and the statements that follow (is the key still the node's? is an ID held?) read the latest
// committed state. No row when the node does not exist.
//
// The write is `lastWrite`, the id of the store call (see node.last-write.cypher), not a counter that reads what
// it writes (`revision = revision + 1`): on Neo4j 5.26 such a read-dependent SET made the transactions queued on
// this lock fail with DeadlockDetected as soon as the holder changed the node's LINKED relationships (16 of 20
// queued writers; the driver retried them after a second or more, and under load past its retry time, a 503).
MATCH (node:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
SET node.lastWrite = $write
RETURN elementId(node) AS node
