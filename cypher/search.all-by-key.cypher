// params: customer, schema, keyType, keyId, whereType, whereValue, exclude, maxNodes, maxIds, havingType, hiddenTypes, unlinkedTypes, answerBytes
// Step ALL from a keyed node, in one statement: the start node (search.start-by-key.cypher: the keyed node, and,
// when a where condition is also given, only if it holds that ID), then what search.traverse-all.cypher does from
// it, which says why the traversal has its shape and what the answer holds. One statement instead of two saves a
// Bolt round trip. `exclude` leaves out the IDs of the start node itself. No start node: nothing is visited.
MATCH (start:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
WHERE $whereType IS NULL
   OR EXISTS { (start)-[:LINKED]->(:Id {type: $whereType, value: $whereValue}) }
MATCH path = (start)-[:LINKED*0..20000001]-(reached)
WHERE all(vertex IN nodes(path) WHERE NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
WITH DISTINCT reached
LIMIT $maxNodes + $maxIds + 1
WITH collect(reached) AS vertices
WITH vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH vertices, nodes, size(nodes) AS visited
WITH nodes, visited, size(vertices) - visited + COUNT {
  UNWIND CASE WHEN size($unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN $unlinkedTypes
  RETURN DISTINCT id
} AS idsRead
WITH visited, idsRead, COLLECT {
  UNWIND nodes AS target
  MATCH (target)-[:LINKED]->(id:Id)
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
    AND NOT ($exclude AND target.schema = $schema AND target.keyType = $keyType AND target.keyId = $keyId)
    AND ($havingType IS NULL OR id.type = $havingType)
    AND NOT id.type IN $hiddenTypes
  RETURN DISTINCT {type: id.type, id: id.value}
} AS ids
WITH visited, idsRead, ids, reduce(chars = 0, id IN ids | chars + size(id.type) + size(id.id)) AS idChars
RETURN visited, idsRead, size(ids) AS idCount, idChars,
  CASE WHEN $answerBytes IS NULL OR 32 + 20 * size(ids) + idChars <= $answerBytes THEN ids ELSE [] END AS ids
