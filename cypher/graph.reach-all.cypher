// params: source, holdersSchema, maxNodes, maxIds, unlinkedTypes, hiddenTypes
// The explorer's step ALL (docs/explorer.md): the nodes search.traverse-all.cypher reaches from the same source, by
// the same traversal under the same bounds (its comment says why this shape, and what holdersSchema is), each with
// its distance from the source (`hops`, in LINKED relationships) and what cutGraph orders by (src/domain/graph.ts):
// schema, key, and how many IDs it holds (the relationship count of the vertex, no Id vertex read). The nodes' IDs
// are read afterwards, for the answered nodes only (graph.ids.cypher).
// With each node, `idChars`: what its IDs but those of $hiddenTypes add to the answer (20 characters each, with
// type and value), which graphAnswerSize (src/domain/graph.ts) counts before they are read.
//
// Why this shape. The first traversal only counts: distinct end nodes, lazily, so the LIMIT stops it once the
// component is proven too large. The distances come from a second traversal, run only within the bounds:
// `min(length(path))` per end node is also planned as VarLengthExpand(Pruning,BFS,All), which then gives each
// vertex its depth, once, breadth first; but the aggregation is eager, so it would walk a component of any size
// before a LIMIT after it could stop it. Both traversals expand each vertex once, however many vertices lead to it:
// a shortest-path search (ANY SHORTEST) does not, and spent 0.5 s from an ID with 1,000 holders that all share
// a device. From a node source, a node's distance in nodes is hops / 2; from an Id source, whose holders are 1 hop
// away, (hops - 1) / 2; integer division gives both as hops / 2.
//
// The second traversal reads what is committed when it runs, as every statement does: a node deleted since the
// first is not reached again, and one reached but deleted before its properties are read has none (a null
// schema), so the store leaves it out, as graph.ids.cypher's reader does.
// The answer is the union of both traversals. Neo4j does not protect a traversal from concurrent writes: reading
// an ID's holders while a writer deletes one of them can end the read of that ID's links early, and the nodes
// behind it go unreached by that traversal. The other traversal reads that ID again a moment later; a node only
// the first reached is placed one level beyond the deepest the second placed.
MATCH (source)
WHERE elementId(source) = $source
CALL (source) {
  MATCH path = (source)-[:LINKED*0..20000001]-(reached)
  WHERE all(vertex IN nodes(path) WHERE vertex = source OR NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
    AND all(link IN relationships(path) WHERE $holdersSchema IS NULL OR endNode(link) <> source OR startNode(link).schema = $holdersSchema)
  WITH DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
  RETURN collect(reached) AS vertices
}
WITH source, vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH source, nodes, size(nodes) AS visited, size(vertices) - size(nodes) + COUNT {
  UNWIND CASE WHEN size($unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN $unlinkedTypes AND id <> source
  RETURN DISTINCT id
} AS idsRead
WITH source, visited, idsRead, nodes, COLLECT {
  MATCH path = (source)-[:LINKED*0..20000001]-(reached)
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
    AND all(vertex IN nodes(path) WHERE vertex = source OR NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
    AND all(link IN relationships(path) WHERE $holdersSchema IS NULL OR endNode(link) <> source OR startNode(link).schema = $holdersSchema)
  WITH reached AS node, min(length(path)) AS hops
  WHERE node:IdNode
  RETURN {node: node, level: hops / 2}
} AS placed
WITH visited, idsRead, nodes, placed, reduce(deepest = 0, p IN placed | CASE WHEN p.level > deepest THEN p.level ELSE deepest END) AS deepest
RETURN visited, idsRead, COLLECT {
  UNWIND placed + [node IN nodes WHERE visited <= $maxNodes AND idsRead <= $maxIds | {node: node, level: null}] AS found
  WITH found.node AS node, min(found.level) AS level
  RETURN {ref: elementId(node), level: coalesce(level, deepest + 1),
    schema: node.schema, keyType: node.keyType, keyId: node.keyId, idCount: COUNT { (node)-[:LINKED]->() },
    idChars: reduce(chars = 0, id IN COLLECT { MATCH (node)-[:LINKED]->(id:Id) WHERE NOT id.type IN $hiddenTypes RETURN id } | chars + 20 + size(id.type) + size(id.value))}
} AS nodes
