// params: node, ids, write
// Run only for a locked node that has separations (node.held-among and node.held-many say so), before it links
// `ids`, sorted by the caller: takes the write lock of each Id vertex (creating those that do not exist yet, as
// id.lock-holders.cypher does), and then answers a node the locked node is separated from that holds one of them.
// Every write that links an ID to a separated node takes these locks first and keeps them until commit, so two
// writes adding one ID to both nodes of a pair run one after the other, and the second sees what the first linked.
// Each Id vertex made here gets the labels node.create.cypher gives one (`type:`, `SecureId`), for Neo4j Browser.
MATCH (node:IdNode)
WHERE elementId(node) = $node
WITH node, COLLECT { MATCH (secureType:IdType {customer: node.customer, secure: true}) RETURN secureType.name } AS secureTypes
UNWIND $ids AS wanted
MERGE (id:Id {customer: node.customer, type: wanted.type, value: wanted.id})
  ON CREATE SET id:$(['type:' + wanted.type] + CASE WHEN wanted.type IN secureTypes THEN ['SecureId'] ELSE [] END)
SET id.lastWrite = $write
WITH node, id
MATCH (node)-[:SEPARATED]-(other:IdNode)-[:LINKED]->(id)
RETURN other.schema AS schema, other.keyType AS keyType, other.keyId AS keyId
LIMIT 1
