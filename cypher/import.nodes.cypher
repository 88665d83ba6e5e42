// params: customer, nodes, links, write
// An import batch's nodes (src/store/neo4j/neo4j-import.ts): each of `nodes` ({schema, keyType, keyId}) made as
// node.create.cypher makes one, but for the history entry, which the import writes from its export; then each of
// `links` ({node, type, id}: an ID `nodes[node]` holds, in code-point order of type, then value) made an Id vertex, or
// found, and linked. The domain has checked that the keys are distinct and their schemas there, and no other writer
// touches an importing customer: no key is looked for first (a key taken after all fails the statement on
// idnode_key_unique). Answers how many nodes found no schema vertex (the caller fails the batch then).
//
// Two batches are written at once, and share IDs. Each MERGE locks its ID's entry of id_value_unique until the
// commit, and a batch waits at an ID the other has made and not yet committed: in this order, every batch takes
// those locks in one order, and no two wait for each other in a circle (a deadlock, which Neo4j ends by failing one,
// to be run again: 6 to 11 times an import of the 1M-ID bench graph with each node's IDs in line order; none so).
// Labels as node.create.cypher sets them (`schema:`, `type:`, `SecureId`), for Neo4j Browser.
UNWIND $nodes AS new
OPTIONAL MATCH (schemaVertex:Schema {customer: $customer, schemaId: new.schema})
CREATE (node:IdNode:$('schema:' + new.schema) {customer: $customer, schema: new.schema, keyType: new.keyType, keyId: new.keyId, lastWrite: $write})
FOREACH (inSchema IN CASE WHEN schemaVertex IS NULL THEN [] ELSE [schemaVertex] END | CREATE (node)-[:IN_SCHEMA]->(inSchema))
WITH collect(node) AS made, count(schemaVertex) AS schemed
CALL (made) {
  WITH made, COLLECT { MATCH (secureType:IdType {customer: $customer, secure: true}) RETURN secureType.name } AS secureTypes
  UNWIND $links AS link
  WITH made[link.node] AS node, link, secureTypes
  MERGE (id:Id {customer: $customer, type: link.type, value: link.id})
    ON CREATE SET id:$(['type:' + link.type] + CASE WHEN link.type IN secureTypes THEN ['SecureId'] ELSE [] END)
  CREATE (node)-[:LINKED]->(id)
}
RETURN size(made) - schemed AS unschemed
