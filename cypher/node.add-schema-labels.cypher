// params: batch
// Upgrade 4 of the ledger (neo4j-migrations.ts): gives every IdNode written before the labels existed the label of
// its schema, `schema:` and the schema id (node.create.cypher sets it on every node it makes), for Neo4j Browser's
// style (docs/neo4j-browser.md). Idempotent: a node that has its label is left alone. It commits every `batch`
// nodes, so a large database is labelled in bounded transactions; an auto-commit statement, as CALL { } IN
// TRANSACTIONS must be.
MATCH (node:IdNode)
WHERE NOT 'schema:' + node.schema IN labels(node)
CALL (node) {
  SET node:$('schema:' + node.schema)
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS labelled
