// params: source, cap, excluded, havingType, hiddenTypes
// Step ALL: the nodes reachable from the source vertex (a start node, or the Id vertex of a where condition)
// through shared IDs, at most `cap` of them (TRAVERSAL_MAX_NODES + 1: one more means component_too_large).
//
// Why this shape. Only the distinct end nodes are used (`WITH DISTINCT reached`), never the paths or the
// relationships, and the lower bound is 0. Those are the conditions under which the planner replaces the
// variable-length expand by VarLengthExpand(Pruning,BFS,All): a breadth-first search that expands every vertex
// once and emits every reached node once, instead of enumerating every path (Cypher Manual, "Operators in
// detail", Breadth First VarLength Expand Pruning: planned when "the individual paths are not of interest" and
// "the lower bound is either 0 or 1"; the plain VarLengthExpand(Pruning) further needs an upper bound). Being
// breadth-first and lazy, it stops as soon as LIMIT has its `cap` nodes.
//
// The upper bound is a literal because variable-length bounds cannot be parameters. It never cuts a search short:
// node and Id vertices alternate along a path, so a component holding more than N nodes has N + 1 of them within
// 2N + 1 hops of any of its vertices, and TRAVERSAL_MAX_NODES is at most 10,000,000 (src/config.ts). The search
// therefore either reaches the whole component or hits `cap` (test/cypher/store-files.test.ts checks the bound).
//
// Then, in the same statement, what the search answers: the number of nodes reached (`visited`; `cap` of them
// means component_too_large, and then no IDs are gathered), and the distinct IDs the reached nodes hold, but for
// the nodes in `excluded` (the start nodes, for `exclude`), of type havingType when it is not null, without the
// hidden (secure, unauthenticated) types. Unsorted and unlimited: the caller sorts in code-point order, counts
// `total` and keeps the first `limit`, because Cypher's string order is not guaranteed to be code-point order.
// One statement instead of a traversal and a results query saves a Bolt round trip and a statement: on a local
// Neo4j 5.26 a small search took 1.85 ms in place of 2.3–2.8 ms (README, Performance, On Neo4j).
MATCH (source)
WHERE elementId(source) = $source
MATCH (source)-[:LINKED*0..20000001]-(reached:IdNode)
WITH DISTINCT reached
LIMIT $cap
WITH collect(reached) AS nodes
RETURN size(nodes) AS visited, COLLECT {
  UNWIND nodes AS target
  MATCH (target)-[:LINKED]->(id:Id)
  WHERE size(nodes) < $cap
    AND NOT elementId(target) IN $excluded
    AND ($havingType IS NULL OR id.type = $havingType)
    AND NOT id.type IN $hiddenTypes
  RETURN DISTINCT {type: id.type, id: id.value}
} AS ids
