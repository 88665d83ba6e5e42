// params: node, ids, maxIds
// Makes the node hold `ids`, creating the Id vertices that do not exist yet (in the node's customer). The caller
// sorts `ids`, so that transactions linking overlapping IDs lock their Id vertices in the same order.
//
// When maxIds is not null (NODE_MAX_IDS, passed by the writes that grow the node: insert, and upsert adding its
// `set`), nothing is linked, and `linked` is 0, if the node would then hold more than maxIds IDs. The caller passes
// only IDs the node does not hold yet, and holds the node's lock (node.lock.cypher): every change to a node's
// links starts with that lock, so the count read here stays true until commit, and concurrent writes to one node
// never take it past the limit. The count is the node's degree, which Neo4j keeps: it costs no read of the links.
// Each Id vertex made here gets the labels node.create.cypher gives one (`type:`, `SecureId`), for Neo4j Browser.
MATCH (node:IdNode)
WHERE elementId(node) = $node
  AND ($maxIds IS NULL OR COUNT { (node)-[:LINKED]->() } + size($ids) <= $maxIds)
WITH node, COLLECT { MATCH (secureType:IdType {customer: node.customer, secure: true}) RETURN secureType.name } AS secureTypes
UNWIND $ids AS held
MERGE (id:Id {customer: node.customer, type: held.type, value: held.id})
  ON CREATE SET id:$(['type:' + held.type] + CASE WHEN held.type IN secureTypes THEN ['SecureId'] ELSE [] END)
MERGE (node)-[:LINKED]->(id)
RETURN count(id) AS linked
