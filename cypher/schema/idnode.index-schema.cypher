// params:
// Finds the nodes of one schema (is a schema in use; does a schema still hold a type) without relying on a
// prefix of the four-property key constraint.
CREATE INDEX idnode_customer_schema IF NOT EXISTS
FOR (node:IdNode) ON (node.customer, node.schema)
