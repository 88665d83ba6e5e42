// params: targets, havingType, hiddenTypes
// The distinct IDs held by the target nodes, of type havingType when it is not null, without the hidden
// (secure, unauthenticated) types. Unsorted and unlimited: the caller sorts in code-point order, counts `total`
// and keeps the first `limit`, because Cypher's string order is not guaranteed to be code-point order.
MATCH (target:IdNode)-[:LINKED]->(id:Id)
WHERE elementId(target) IN $targets
  AND ($havingType IS NULL OR id.type = $havingType)
  AND NOT id.type IN $hiddenTypes
RETURN DISTINCT id.type AS type, id.value AS id
