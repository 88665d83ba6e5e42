// params: customer, schema, keyType, keyId
// Finds a node by its key and takes its write lock for the rest of the transaction: the SET reads the property it
// writes, and for such a direct dependency Cypher locks before reading (Operations Manual, "Concurrent data
// access", lost updates). Every change to a node starts here, so changes to one node run one after the other and
// the checks that follow (is an ID held?) see the latest committed state. No row when the node does not exist.
MATCH (node:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
SET node.revision = coalesce(node.revision, 0) + 1
RETURN elementId(node) AS node
