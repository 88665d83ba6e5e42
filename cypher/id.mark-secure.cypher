// params: customer, types
// A schema put that makes `types` secure (they were not) marks the customer's existing IDs of them `SecureId`, in
// its own transaction, so Neo4j Browser's style shows them secure (docs/neo4j-browser.md). New IDs get the label
// when they are created (node.create.cypher). A type stops being secure only while no ID of it exists, so nothing
// ever removes the label.
MATCH (id:Id {customer: $customer})
WHERE id.type IN $types AND NOT id:SecureId
SET id:SecureId
