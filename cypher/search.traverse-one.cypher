// params: starts, cap
// Step ONE from start nodes: the start nodes and the nodes sharing at least one ID with one of them (node, Id,
// node: at most two hops), at most `cap` of them.
//
// Why this shape: as in search.traverse-all.cypher, only distinct end nodes are used and the lower bound is 0, so
// the planner can use VarLengthExpand(Pruning,BFS,All) (Cypher Manual, "Operators in detail", Breadth First
// VarLength Expand Pruning), which expands each vertex within the two hops once per start node. Used for a keyed
// start node, and for where restricted to a schema, where the start nodes are only some of the ID's holders.
// The start nodes come one per row (UNWIND), so that each is an element-id seek; see search.results.cypher.
UNWIND $starts AS startId
MATCH (start:IdNode)
WHERE elementId(start) = startId
MATCH (start)-[:LINKED*0..2]-(reached:IdNode)
WITH DISTINCT reached
LIMIT $cap
RETURN elementId(reached) AS node
