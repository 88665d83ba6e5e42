// params: source, cap, excluded, havingType, hiddenTypes
// Step ONE from a where condition without a schema: the start nodes are all the holders of the ID (one hop from
// its Id vertex), and the nodes sharing an ID with one of them are three hops away (Id, holder, Id, node). One
// breadth-first search from the Id vertex instead of one per holder, at most `cap` nodes.
//
// Why this shape: only distinct end nodes are used and the lower bound is 1, the conditions for
// VarLengthExpand(Pruning,BFS,All) (Cypher Manual, "Operators in detail", Breadth First VarLength Expand Pruning).
//
// Then, in the same statement, what the search answers: the number of nodes reached (`visited`; `cap` of them
// means component_too_large, and then no IDs are gathered), and the distinct IDs the reached nodes hold, but for
// the nodes in `excluded` (the start nodes, for `exclude`), of type havingType when it is not null, without the
// hidden (secure, unauthenticated) types. Unsorted and unlimited: the caller sorts in code-point order, counts
// `total` and keeps the first `limit`, because Cypher's string order is not guaranteed to be code-point order.
// One statement instead of a traversal and a results query saves a Bolt round trip and a statement: on a local
// Neo4j 5.26 a small search took 1.85 ms in place of 2.3–2.8 ms (README, Performance, On Neo4j).
MATCH (source:Id)
WHERE elementId(source) = $source
MATCH (source)-[:LINKED*1..3]-(reached:IdNode)
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
