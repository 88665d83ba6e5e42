// params: source, maxNodes, maxIds, unlinkedTypes, hiddenTypes
// The explorer's step ONE from a `where` without a schema (docs/explorer.md): the holders of the ID and the nodes
// sharing an ID with one of them, as search.traverse-one-from-id.cypher reaches them, by the same traversal under
// the same bounds (its comment says why this shape), each with what cutGraph orders by (src/domain/graph.ts):
// schema, key, and how many IDs it holds (the relationship count of the vertex). The caller knows the holders
// (the start nodes), level 0; every other node is level 1. The nodes' IDs are read afterwards, for the answered
// nodes only (graph.ids.cypher).
// With each node, `idChars`: what its IDs but those of $hiddenTypes add to the answer (20 characters each, with
// type and value), which graphAnswerSize (src/domain/graph.ts) counts before they are read.
// The nodes are those of two traversals: Neo4j does not protect a traversal from concurrent writes, and reading an
// ID's holders while a writer deletes one of them can end the read of that ID's links early. The second traversal
// reads them again a moment later (graph.reach-all.cypher says more).
MATCH (source:Id)
WHERE elementId(source) = $source
MATCH path = (source)-[:LINKED*0..4]-(reached)
WHERE all(vertex IN nodes(path) WHERE vertex = source OR NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
WITH DISTINCT source, reached
LIMIT $maxNodes + $maxIds + 1
WITH source, collect(reached) AS vertices
WITH source, vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH source, nodes, size(nodes) AS visited, size(vertices) - size(nodes) + COUNT {
  UNWIND CASE WHEN size($unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN $unlinkedTypes AND elementId(id) <> $source
  RETURN DISTINCT id
} AS idsRead
RETURN visited, idsRead, COLLECT {
  UNWIND nodes + COLLECT {
    MATCH path = (source)-[:LINKED*0..4]-(again:IdNode)
    WHERE visited <= $maxNodes AND idsRead <= $maxIds
      AND all(vertex IN nodes(path) WHERE vertex = source OR NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
    RETURN DISTINCT again
  } AS node
  WITH DISTINCT node
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
  RETURN {ref: elementId(node), schema: node.schema, keyType: node.keyType, keyId: node.keyId, idCount: COUNT { (node)-[:LINKED]->() },
    idChars: reduce(chars = 0, id IN COLLECT { MATCH (node)-[:LINKED]->(id:Id) WHERE NOT id.type IN $hiddenTypes RETURN id } | chars + 20 + size(id.type) + size(id.value))}
} AS nodes
