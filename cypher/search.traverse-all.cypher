// params: source, holdersSchema, maxNodes, maxIds, excluded, havingType, hiddenTypes, unlinkedTypes, answerBytes
// Step ALL: the nodes reachable from the source vertex through shared IDs, and the IDs they hold. The source is the
// keyed start node, or the Id vertex of a where condition, whose holders are the start nodes and lie in one
// component with it. One case needs more: a where condition on an ID of a `links: false` type, restricted to a
// schema, whose start nodes are only the ID's holders in that schema (holdersSchema; null otherwise). The source
// is then still the Id vertex, but the traversal steps from it to those holders only (the predicate on the
// relationships below: a LINKED relationship into the source must come from a node of holdersSchema), and through
// it nowhere else. So it is one breadth-first search however many holders start, each vertex of their components
// expanded once: a traversal per holder walked a shared component once per holder, quadratic in the holders.
//
// The traversal reaches Id vertices as well as nodes, and counts both: the IDs the reached nodes hold, hidden types
// included (reading them costs the same), are bounded by maxIds (TRAVERSAL_MAX_IDS) as the nodes are by maxNodes.
// It stops at maxNodes + maxIds + 1 vertices: that many means more than maxNodes nodes or more than maxIds IDs,
// proven without reading the rest; fewer means it reached them all, so both counts are exact.
//
// Why this shape. Only the distinct end nodes are used (`WITH DISTINCT reached`), never the paths or the
// relationships, and the lower bound is 0. Those are the conditions under which the planner replaces the
// variable-length expand by VarLengthExpand(Pruning,BFS,All): a breadth-first search that expands every vertex
// once and emits every reached node once, instead of enumerating every path (Cypher Manual, "Operators in
// detail", Breadth First VarLength Expand Pruning: planned when "the individual paths are not of interest" and
// "the lower bound is either 0 or 1"; the plain VarLengthExpand(Pruning) further needs an upper bound). Being
// breadth-first and lazy, it stops as soon as LIMIT has its vertices.
//
// The upper bound is a literal because variable-length bounds cannot be parameters. It never cuts a search short:
// a component of more than N vertices has N + 1 of them within N hops of any of its vertices, and
// TRAVERSAL_MAX_NODES and TRAVERSAL_MAX_IDS are each at most 10,000,000 (src/config.ts), so N = maxNodes + maxIds
// is at most 20,000,000. The search therefore either reaches the whole component or hits the LIMIT
// (test/cypher/store-files.test.ts checks the bound).
//
// IDs of `links: false` types (unlinkedTypes) are never stepped through. The path predicate keeps them out of every
// path (but for the source, when a where condition starts from one), and the planner solves it inside the same
// VarLengthExpand(Pruning,BFS,All), as a predicate on each vertex it reaches, and the holdersSchema one on each
// relationship it steps along (EXPLAIN on 5.26 shows both in the operator's details;
// test/store-contract/neo4j.neo4j.test.ts checks the plan): a vertex it refuses is neither reached nor expanded,
// so a `links: false` ID held by a million nodes costs one refused vertex. Such IDs are still
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
// Which IDs the reached nodes hold needs no second walk when nothing is excluded and every type links: the
// traversal reached every Id vertex of the component, and those are exactly the IDs its nodes hold. Only with
// excluded start nodes or `links: false` types (never stepped through, so not reached) does it expand each node
// again (`gather`: 'held'); for a 1,000-node component that second walk was a third of the statement's time.
//
// The answer's weight comes with it: how many IDs (`idCount`) and the characters of their types and values
// (`idChars`), which answerSize (src/domain/model.ts) counts; the IDs themselves only when the whole answer is
// within $answerBytes (null: always), so that a large one is not sent before the service has room for it.
MATCH (source)
WHERE elementId(source) = $source
MATCH path = (source)-[:LINKED*0..20000001]-(reached)
WHERE all(vertex IN nodes(path) WHERE vertex = source OR NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
  AND all(link IN relationships(path) WHERE $holdersSchema IS NULL OR endNode(link) <> source OR startNode(link).schema = $holdersSchema)
WITH DISTINCT reached
LIMIT $maxNodes + $maxIds + 1
WITH collect(reached) AS vertices
WITH vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH vertices, nodes, size(nodes) AS visited
WITH vertices, nodes, visited, size(vertices) - visited + COUNT {
  UNWIND CASE WHEN size($unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN $unlinkedTypes AND elementId(id) <> $source
  RETURN DISTINCT id
} AS idsRead
WITH visited, idsRead, vertices, nodes,
  CASE WHEN visited > $maxNodes OR idsRead > $maxIds THEN 'none' WHEN size($excluded) > 0 OR size($unlinkedTypes) > 0 THEN 'held' ELSE 'reached' END AS gather
WITH visited, idsRead, [vertex IN CASE gather WHEN 'reached' THEN vertices ELSE [] END WHERE vertex:Id] + COLLECT {
  UNWIND CASE gather WHEN 'held' THEN nodes ELSE [] END AS target
  MATCH (target)-[:LINKED]->(id:Id)
  WHERE NOT elementId(target) IN $excluded
  RETURN DISTINCT id
} AS held
WITH visited, idsRead, COLLECT {
  UNWIND held AS id
  WITH id
  WHERE ($havingType IS NULL OR id.type = $havingType) AND NOT id.type IN $hiddenTypes
  WITH id.type AS type, collect(id.value) AS idValues
  RETURN {type: type, ids: idValues}
} AS ids
WITH visited, idsRead, ids, reduce(n = 0, group IN ids | n + size(group.ids)) AS idCount,
  reduce(chars = 0, group IN ids | chars + size(group.ids) * size(group.type) + reduce(valueChars = 0, value IN group.ids | valueChars + size(value))) AS idChars
RETURN visited, idsRead, idCount, idChars,
  CASE WHEN $answerBytes IS NULL OR 32 + 20 * idCount + idChars <= $answerBytes THEN ids ELSE [] END AS ids
