// params: source, cap
// Step ONE from a where condition without a schema: the start nodes are all the holders of the ID (one hop from
// its Id vertex), and the nodes sharing an ID with one of them are three hops away (Id, holder, Id, node). One
// breadth-first search from the Id vertex instead of one per holder, at most `cap` nodes.
//
// Why this shape: only distinct end nodes are used and the lower bound is 1, the conditions for
// VarLengthExpand(Pruning,BFS,All) (Cypher Manual, "Operators in detail", Breadth First VarLength Expand Pruning).
MATCH (source:Id)
WHERE elementId(source) = $source
MATCH (source)-[:LINKED*1..3]-(reached:IdNode)
WITH DISTINCT reached
LIMIT $cap
RETURN elementId(reached) AS node
