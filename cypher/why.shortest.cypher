// params: customer, from, to, unlinkedTypes, maxStarts
// `from` and `to`: maps of schema, keyType, keyId, whereType, whereValue (null when not given).
// `_why`: the start nodes of both starts (as search.start-by-key and search.start-by-where find them, at most
// maxStarts of each), then every shortest chain of LINKED between a `from` node and a `to` node, never through
// an Id vertex of a `links: false` type. allShortestPaths runs as Neo4j's bidirectional breadth-first search
// (ShortestPath in the plan; test/store-contract/neo4j.neo4j.test.ts checks it): the planner keeps the vertex
// predicate inside the search, so it needs no fallback. Every shortest chain, not one: which one shortestPath
// returns is not defined, and the caller keeps the smallest (compareChains in src/domain/why.ts), as SQLite does.
// The upper bound is a literal (bounds cannot be parameters): 2 × 50, WHY_SEARCH_HOPS node-to-node hops.
// One row per start side found (`fromFound`, `toFound`), with the chains, none when one side has no node.
CALL () {
  CALL () {
  MATCH (n:IdNode {customer: $customer, schema: $from.schema, keyType: $from.keyType, keyId: $from.keyId})
  WHERE $from.whereType IS NULL OR EXISTS { (n)-[:LINKED]->(:Id {customer: $customer, type: $from.whereType, value: $from.whereValue}) }
  RETURN n
  UNION
  MATCH (:Id {customer: $customer, type: $from.whereType, value: $from.whereValue})<-[:LINKED]-(n:IdNode)
  WHERE $from.keyType IS NULL AND ($from.schema IS NULL OR n.schema = $from.schema)
  RETURN n
  }
  WITH n LIMIT $maxStarts
  RETURN collect(n) AS froms
}
CALL () {
  CALL () {
  MATCH (n:IdNode {customer: $customer, schema: $to.schema, keyType: $to.keyType, keyId: $to.keyId})
  WHERE $to.whereType IS NULL OR EXISTS { (n)-[:LINKED]->(:Id {customer: $customer, type: $to.whereType, value: $to.whereValue}) }
  RETURN n
  UNION
  MATCH (:Id {customer: $customer, type: $to.whereType, value: $to.whereValue})<-[:LINKED]-(n:IdNode)
  WHERE $to.keyType IS NULL AND ($to.schema IS NULL OR n.schema = $to.schema)
  RETURN n
  }
  WITH n LIMIT $maxStarts
  RETURN collect(n) AS tos
}
WITH froms, tos, [n IN froms WHERE n IN tos] AS same
CALL (froms, tos, same) {
  WITH froms, tos, same
  WHERE size(same) = 0 AND size(froms) > 0 AND size(tos) > 0
  UNWIND froms AS a
  UNWIND tos AS b
  MATCH p = allShortestPaths((a)-[:LINKED*..100]-(b))
  WHERE all(v IN nodes(p) WHERE NOT (v:Id AND v.type IN $unlinkedTypes))
  RETURN collect([v IN nodes(p) | CASE WHEN v:Id THEN {type: v.type, id: v.value} ELSE {schema: v.schema, type: v.keyType, id: v.keyId} END]) AS chains
}
RETURN size(froms) > 0 AS fromFound, size(tos) > 0 AS toFound, size(froms) AS fromCount, size(tos) AS toCount,
  [n IN same | {schema: n.schema, type: n.keyType, id: n.keyId}] AS same, chains
