// params: starts, cap, excluded, havingType, hiddenTypes
// Step ONE from start nodes: the start nodes and the nodes sharing at least one ID with one of them (node, Id,
// node: at most two hops), at most `cap` of them.
//
// Why this shape: as in search.traverse-all.cypher, only distinct end nodes are used and the lower bound is 0, so
// the planner can use VarLengthExpand(Pruning,BFS,All) (Cypher Manual, "Operators in detail", Breadth First
// VarLength Expand Pruning), which expands each vertex within the two hops once per start node. Used for a keyed
// start node, and for where restricted to a schema, where the start nodes are only some of the ID's holders.
// The start nodes come one per row (UNWIND), so that each is an element-id seek (NodeByElementIdSeek): given as
// `elementId(start) IN $starts`, Neo4j 5.26 planned a list of 1,345 ids as a scan of every IdNode, whose cost
// grows with the whole database. test/store-contract/neo4j.neo4j.test.ts checks the plan.
//
// Then, in the same statement, what the search answers: the number of nodes reached (`visited`; `cap` of them
// means component_too_large, and then no IDs are gathered), and the distinct IDs the reached nodes hold, but for
// the nodes in `excluded` (the start nodes, for `exclude`), of type havingType when it is not null, without the
// hidden (secure, unauthenticated) types. Unsorted and unlimited: the caller sorts in code-point order, counts
// `total` and keeps the first `limit`, because Cypher's string order is not guaranteed to be code-point order.
// One statement instead of a traversal and a results query saves a Bolt round trip and a statement: on a local
// Neo4j 5.26 a small search took 1.85 ms in place of 2.3–2.8 ms (README, Performance, On Neo4j).
UNWIND $starts AS startId
MATCH (start:IdNode)
WHERE elementId(start) = startId
MATCH (start)-[:LINKED*0..2]-(reached:IdNode)
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
