// params: sources, maxNodes, maxIds, unlinkedTypes, hiddenTypes
// The explorer's step ALL (extensions §5): the nodes search.traverse-all.cypher reaches from the same sources,
// under the same bounds, each with its distance from the nearest source (`hops`, in LINKED relationships) and
// what cutGraph orders by (src/domain/graph.ts): schema, key, and how many IDs it holds (the relationship count of
// the vertex, no Id vertex read). The nodes' IDs are read afterwards, for the answered nodes only
// (graph.ids.cypher). With each node, `idChars`: what its IDs but those of $hiddenTypes add to the answer (20
// characters each, with type and value), which graphAnswerSize (src/domain/graph.ts) counts before they are read.
//
// Why this shape. A path selector, ANY SHORTEST, gives each reached vertex's distance, which DISTINCT over a
// variable-length expand cannot; with the target unbound, Neo4j 5.26 plans it as StatefulShortestPath(All)
// expanding from the source, a breadth-first search that reaches every vertex once, with the quantified path's
// predicate inlined (EXPLAIN shows "inlined predicates"), so a `links: false` ID is neither reached nor expanded,
// as in the search. The LIMIT of maxNodes + maxIds + 1 vertices per source stops it once the component is proven
// too large (search.traverse-all.cypher says why that bound). Several sources (a `where` on a `links: false` ID
// restricted to a schema: each start node is its own source) are each traversed on their own; a vertex keeps its
// shortest distance. From a node source, a node's distance in nodes is hops / 2; from an Id source, whose holders
// are 1 hop away, (hops - 1) / 2; integer division gives both as hops / 2.
UNWIND $sources AS sourceId
MATCH (source)
WHERE elementId(source) = sourceId
CALL (source) {
  MATCH path = ANY SHORTEST (source) ((a)-[:LINKED]-(b) WHERE NOT (b:Id AND b.type IN $unlinkedTypes)){0,} (reached)
  RETURN reached, length(path) AS hops
  LIMIT $maxNodes + $maxIds + 1
}
WITH reached, min(hops) AS hops
WITH collect({vertex: reached, hops: hops}) AS vertices
WITH vertices, [v IN vertices WHERE v.vertex:IdNode] AS nodes
WITH nodes, size(nodes) AS visited, size(vertices) - size(nodes) + COUNT {
  UNWIND CASE WHEN size($unlinkedTypes) = 0 THEN [] ELSE nodes END AS reachedNode
  WITH reachedNode.vertex AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN $unlinkedTypes AND NOT elementId(id) IN $sources
  RETURN DISTINCT id
} AS idsRead
RETURN visited, idsRead, COLLECT {
  UNWIND nodes AS reachedNode
  WITH reachedNode.vertex AS node, reachedNode.hops AS hops
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
  RETURN {ref: elementId(node), level: hops / 2, schema: node.schema, keyType: node.keyType, keyId: node.keyId, idCount: COUNT { (node)-[:LINKED]->() },
    idChars: reduce(chars = 0, id IN COLLECT { MATCH (node)-[:LINKED]->(id:Id) WHERE NOT id.type IN $hiddenTypes RETURN id } | chars + 20 + size(id.type) + size(id.value))}
} AS nodes
