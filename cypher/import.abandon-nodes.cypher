// params: customer
// The first step of abandoning an import (Neo4jImport.abandon in src/store/neo4j/neo4j-import.ts): deletes the
// customer's nodes, with their LINKED, IN_SCHEMA and SEPARATED relationships. The customer was empty when the import
// began (import.begin.cypher), so every node of it is the import's. An import can hold a million IDs: the nodes go in
// transactions of 5,000 (CALL { } IN TRANSACTIONS, so an auto-commit query), found by a seek of the (customer,
// schema) index (the hint; the existence predicate lets the composite index be seeked by its first property). One
// kind of vertex a statement: a second MATCH after the first makes the planner buffer all its rows before deleting.
MATCH (node:IdNode {customer: $customer})
USING INDEX node:IdNode(customer, schema)
WHERE node.schema IS NOT NULL
CALL (node) {
  DETACH DELETE node
} IN TRANSACTIONS OF 5000 ROWS
