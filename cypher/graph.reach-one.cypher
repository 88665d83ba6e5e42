// params: starts, maxNodes, maxIds, unlinkedTypes, hiddenTypes
// The explorer's step ONE from start nodes (docs/explorer.md): the nodes search.traverse-one.cypher reaches, by the
// same traversal under the same bounds (its comment says why this shape), each with what cutGraph orders by
// (src/domain/graph.ts): schema, key, and how many IDs it holds (the relationship count of the vertex). The
// caller knows the start nodes, level 0; every other node is level 1. The nodes' IDs are read afterwards, for the
// answered nodes only (graph.ids.cypher).
// With each node, `idChars`: what its IDs but those of $hiddenTypes add to the answer (20 characters each, with
// type and value), which graphAnswerSize (src/domain/graph.ts) counts before they are read.
// The nodes are those of two traversals: Neo4j does not protect a traversal from concurrent writes, and reading an
// ID's holders while a writer deletes one of them can end the read of that ID's links early. The second traversal
// reads them again a moment later (graph.reach-all.cypher says more).
UNWIND $starts AS startId
MATCH (start:IdNode)
WHERE elementId(start) = startId
MATCH path = (start)-[:LINKED*0..3]-(reached)
WHERE all(vertex IN nodes(path) WHERE NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
WITH DISTINCT reached
LIMIT $maxNodes + $maxIds + 1
WITH collect(reached) AS vertices
WITH vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH nodes, size(nodes) AS visited, size(vertices) - size(nodes) + COUNT {
  UNWIND CASE WHEN size($unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN $unlinkedTypes
  RETURN DISTINCT id
} AS idsRead
RETURN visited, idsRead, COLLECT {
  UNWIND nodes + COLLECT {
    UNWIND $starts AS startId
    MATCH (start:IdNode)
    WHERE elementId(start) = startId
    MATCH path = (start)-[:LINKED*0..3]-(again:IdNode)
    WHERE visited <= $maxNodes AND idsRead <= $maxIds
      AND all(vertex IN nodes(path) WHERE NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
    RETURN DISTINCT again
  } AS node
  WITH DISTINCT node
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
  RETURN {ref: elementId(node), schema: node.schema, keyType: node.keyType, keyId: node.keyId, idCount: COUNT { (node)-[:LINKED]->() },
    idChars: reduce(chars = 0, id IN COLLECT { MATCH (node)-[:LINKED]->(id:Id) WHERE NOT id.type IN $hiddenTypes RETURN id } | chars + 20 + size(id.type) + size(id.value))}
} AS nodes
