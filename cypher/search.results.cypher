// params: targets, havingType, hiddenTypes
// The distinct IDs held by the target nodes, of type havingType when it is not null, without the hidden
// (secure, unauthenticated) types. Unsorted and unlimited: the caller sorts in code-point order, counts `total`
// and keeps the first `limit`, because Cypher's string order is not guaranteed to be code-point order.
//
// Why UNWIND: with `elementId(target) IN $targets`, Neo4j 5.26 planned a list of 1,345 targets as a scan of every
// IdNode (NodeByLabelScan), whose cost grows with the whole database; one element id per row is a seek
// (NodeByElementIdSeek) whatever the list's size. test/store-contract/neo4j.neo4j.test.ts checks the plan.
UNWIND $targets AS targetId
MATCH (target:IdNode)-[:LINKED]->(id:Id)
WHERE elementId(target) = targetId
  AND ($havingType IS NULL OR id.type = $havingType)
  AND NOT id.type IN $hiddenTypes
RETURN DISTINCT id.type AS type, id.value AS id
