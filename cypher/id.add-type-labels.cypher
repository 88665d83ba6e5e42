// params: batch
// Upgrade 5 of the ledger (neo4j-migrations.ts): gives every Id vertex written before the labels existed the label
// of its type, `type:` and the type name, and `SecureId` when its type is secure for its customer
// (node.create.cypher sets them on every Id it makes), for Neo4j Browser's style (docs/neo4j-browser.md).
// Idempotent, in transactions of `batch` IDs, as node.add-schema-labels.cypher. A vertex with its type label has
// its SecureId too (both are set together, and a type made secure marks its IDs: id.mark-secure.cypher), so the
// type label alone says which are done.
MATCH (id:Id)
WHERE NOT 'type:' + id.type IN labels(id)
CALL (id) {
  SET id:$(['type:' + id.type] + CASE WHEN EXISTS { (:IdType {customer: id.customer, name: id.type, secure: true}) } THEN ['SecureId'] ELSE [] END)
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS labelled
