// params:
// A node's key is unique within its customer and schema. createNode and rekey rely on this constraint, not on a
// prior read, to refuse a taken key: of concurrent creates of one key exactly one commits, the others fail with
// Neo.ClientError.Schema.ConstraintValidationFailed, which the store reports as node_exists.
CREATE CONSTRAINT idnode_key_unique IF NOT EXISTS
FOR (node:IdNode) REQUIRE (node.customer, node.schema, node.keyType, node.keyId) IS UNIQUE
