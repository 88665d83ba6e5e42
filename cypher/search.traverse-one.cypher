// params: starts, maxNodes, maxIds, excluded, havingType, hiddenTypes, unlinkedTypes, answerBytes
// Step ONE from start nodes: the start nodes and the nodes sharing at least one ID with one of them (node, Id,
// node: at most two hops), and the IDs they hold (one hop more).
//
// The traversal reaches Id vertices as well as nodes, and counts both: the IDs the reached nodes hold, hidden types
// included (reading them costs the same), are bounded by maxIds (TRAVERSAL_MAX_IDS) as the nodes are by maxNodes.
// It stops at maxNodes + maxIds + 1 vertices: that many means more than maxNodes nodes or more than maxIds IDs,
// proven without reading the rest; fewer means it reached them all, so both counts are exact.
//
// Why this shape: as in search.traverse-all.cypher, only distinct end nodes are used and the lower bound is 0, so
// the planner can use VarLengthExpand(Pruning,BFS,All) (Cypher Manual, "Operators in detail", Breadth First
// VarLength Expand Pruning), which expands each vertex within the three hops once per start node. Used for a keyed
// start node, and for where restricted to a schema, where the start nodes are only some of the ID's holders.
// The start nodes come one per row (UNWIND), so that each is an element-id seek (NodeByElementIdSeek): given as
// `elementId(start) IN $starts`, Neo4j 5.26 planned a list of 1,345 ids as a scan of every IdNode, whose cost
// grows with the whole database. test/store-contract/neo4j.neo4j.test.ts checks the plan.
//
// IDs of `links: false` types (unlinkedTypes) are never stepped through. The path predicate keeps them out of every
// path, and the planner solves it inside the same
// VarLengthExpand(Pruning,BFS,All), as a predicate on each vertex it reaches (EXPLAIN on 5.26 shows it in the
// operator's details; test/store-contract/neo4j.neo4j.test.ts checks the plan): a vertex it refuses is neither
// reached nor expanded, so a `links: false` ID held by a million nodes costs one refused vertex. Such IDs are still
// IDs the reached nodes hold: the COUNT below adds them to idsRead (and reads nothing when unlinkedTypes is empty),
// and they are returned.
//
// Then, in the same statement, what the search answers: the number of nodes reached (`visited`) and of Id vertices
// (`idsRead`; more than maxNodes or maxIds means component_too_large, and then no IDs are gathered), and the
// distinct IDs the reached nodes hold, but for the nodes in `excluded` (the start nodes, for `exclude`), of type
// havingType when it is not null, without the hidden (secure, unauthenticated) types, as one list of values per type
// (a map per ID cost the service more to decode than the rest of a large search). Unsorted and unlimited: the caller
// sorts in code-point order, counts `total` and keeps the first `limit`, because Cypher's string order is not
// guaranteed to be code-point order. One statement instead of a traversal and a results query saves a Bolt round
// trip and a statement: on a local Neo4j 5.26 a small search took 1.85 ms in place of 2.3–2.8 ms
// (docs/decisions/0002-one-statement-per-read-call.md).
//
// The answer's weight comes with it: how many IDs (`idCount`) and the characters of their types and values
// (`idChars`), which answerSize (src/domain/model.ts) counts; the IDs themselves only when the whole answer is
// within $answerBytes (null: always), so that a large one is not sent before the service has room for it.
UNWIND $starts AS startId
MATCH (start:IdNode)
WHERE elementId(start) = startId
MATCH path = (start)-[:LINKED*0..3]-(reached)
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
    AND NOT elementId(target) IN $excluded
    AND ($havingType IS NULL OR id.type = $havingType)
    AND NOT id.type IN $hiddenTypes
  WITH DISTINCT id
  WITH id.type AS type, collect(id.value) AS idValues
  RETURN {type: type, ids: idValues}
} AS ids
WITH visited, idsRead, ids, reduce(n = 0, group IN ids | n + size(group.ids)) AS idCount,
  reduce(chars = 0, group IN ids | chars + size(group.ids) * size(group.type) + reduce(valueChars = 0, value IN group.ids | valueChars + size(value))) AS idChars
RETURN visited, idsRead, idCount, idChars,
  CASE WHEN $answerBytes IS NULL OR 32 + 20 * idCount + idChars <= $answerBytes THEN ids ELSE [] END AS ids
