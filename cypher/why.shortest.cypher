// params: customer, authenticated, maskedTypes, fromSchema, fromKeyType, fromKeyId, fromWhereType, fromWhereValue, toSchema, toKeyType, toKeyId, toWhereType, toWhereValue, unlinkedTypes, maxStarts, maxNodes, maxIds, maxChains
// Each start as flat parameters (null when not given): the planner seeks an index by a parameter, not by a
// property of a map parameter, which it scanned the whole index for.
// `_why`, in one statement with what it is checked against: the customer's policy, read as customer.policy.cypher
// reads it but for the blocklist's digest, with each start's schema (`policy`), which the caller checks the starts
// against before it uses anything of the answer (the token the customer requires, the schemas and key types, a
// start from a secure type). Nothing is searched unless the caller may (`allowed`: a token, or neither a required
// token nor a secure start). The search never steps through the policy's `links: false` types, or through
// `unlinkedTypes` when given (a caller that read the policy itself); `authenticated` is then true, and
// `maskedTypes` given too.
// Then the start nodes of both starts (as search.start-by-key and search.start-by-where find them, at most
// maxStarts of each), then the shortest chains of LINKED between them, never through an Id vertex of a
// `links: false` type. One search however many nodes a start has: it runs between one vertex per side, the keyed
// node or the Id vertex of a `where`, whose holders are that start's nodes (restricted to the `where`'s schema,
// when it names one, by the predicate on the relationships, as in search.traverse-all.cypher).
// allShortestPaths runs as Neo4j's bidirectional breadth-first search (ShortestPath in the plan;
// test/store-contract/neo4j.neo4j.test.ts checks it), with both predicates inside the search. Every shortest
// chain rather than one, because which one shortestPath returns is not defined: at most maxChains of them, ordered
// by the tie rule (compareChains in src/domain/why.ts: the vias, then the node keys, as the caller sees them: the
// values of `maskedTypes` compare equal, as ''; by default the secure types when the caller has no token), and only
// the smallest is answered, without the Id vertices of `where` starts at its ends. Each vertex is a list, [schema,
// key type, key id] for a node and [type, value] for an ID (its type second to last either way, which `seen` reads
// to mask the value after it), which orders as the rule does: lists element by element, and strings
// read from the store by code point (Neo4j compares them as UTF-8; a string parameter it would compare by UTF-16
// unit; the contract case with characters past U+FFFF checks it). Equal chains multiply with every hop that two
// nodes share more than one ID on: when maxChains are read, more may tie, and no chain is answered but the start
// nodes' element ids, from which the exact search (src/domain/why-chain.ts) runs.
//
// Bounded as SQLite's search is: the search reads what lies around both ends, and may read no more than maxNodes
// nodes and maxIds IDs. It looks for a chain of at most 2 hops (node to node), then 6, 16 and 50; before each, it
// counts the vertices within half that search's length, plus one, of either end (a pruning breadth-first expand,
// lazily, stopping at maxNodes + maxIds + 1), and past either bound it stops and answers `tooLarge`. So a
// search never reads more than the bounds allow, and a near pair in a large person costs what its neighbourhood
// costs. Bounds of variable-length patterns cannot be parameters, hence the four literal steps.
CALL () {
  RETURN COLLECT {
           MATCH (idType:IdType {customer: $customer})
           WHERE idType.secure AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
           RETURN idType.name
         } AS secureTypes,
         COLLECT {
           MATCH (idType:IdType {customer: $customer})
           WHERE idType.links = false AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
           RETURN idType.name
         } AS declaredUnlinked,
         COLLECT {
           MATCH (settings:Settings {customer: $customer})
           RETURN {requireToken: settings.requireToken, timezone: settings.timezone}
         } AS settings,
         COLLECT {
           MATCH (blocklist:Blocklist {customer: $customer})
           RETURN blocklist.rules
         } AS blocklist,
         COLLECT {
           MATCH (schema:Schema {customer: $customer, schemaId: $fromSchema})
           RETURN {
             schemaId: schema.schemaId,
             idTypes: [(schema)-[declares:DECLARES]->(idType:IdType) | {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders, position: declares.position}]
           }
         } AS fromSchema,
         COLLECT {
           MATCH (schema:Schema {customer: $customer, schemaId: $toSchema})
           RETURN {
             schemaId: schema.schemaId,
             idTypes: [(schema)-[declares:DECLARES]->(idType:IdType) | {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders, position: declares.position}]
           }
         } AS toSchema
}
WITH {secureTypes: secureTypes, unlinkedTypes: declaredUnlinked, settings: settings, blocklist: blocklist, fromSchema: fromSchema, toSchema: toSchema} AS policy,
  coalesce($unlinkedTypes, declaredUnlinked) AS unlinkedTypes,
  coalesce($maskedTypes, CASE WHEN $authenticated THEN [] ELSE secureTypes END) AS maskedTypes,
  $authenticated OR NOT (coalesce(settings[0].requireToken, false)
    OR any(type IN [$fromKeyType, $fromWhereType, $toKeyType, $toWhereType] WHERE type IS NOT NULL AND type IN secureTypes)) AS allowed
CALL () {
  CALL () {
  MATCH (n:IdNode {customer: $customer, schema: $fromSchema, keyType: $fromKeyType, keyId: $fromKeyId})
  WHERE $fromWhereType IS NULL OR EXISTS { (n)-[:LINKED]->(:Id {customer: $customer, type: $fromWhereType, value: $fromWhereValue}) }
  RETURN n
  UNION
  MATCH (:Id {customer: $customer, type: $fromWhereType, value: $fromWhereValue})<-[:LINKED]-(n:IdNode)
  WHERE $fromKeyType IS NULL AND ($fromSchema IS NULL OR n.schema = $fromSchema)
  RETURN n
  }
  WITH n LIMIT $maxStarts
  RETURN collect(n) AS froms
}
CALL () {
  CALL () {
  MATCH (n:IdNode {customer: $customer, schema: $toSchema, keyType: $toKeyType, keyId: $toKeyId})
  WHERE $toWhereType IS NULL OR EXISTS { (n)-[:LINKED]->(:Id {customer: $customer, type: $toWhereType, value: $toWhereValue}) }
  RETURN n
  UNION
  MATCH (:Id {customer: $customer, type: $toWhereType, value: $toWhereValue})<-[:LINKED]-(n:IdNode)
  WHERE $toKeyType IS NULL AND ($toSchema IS NULL OR n.schema = $toSchema)
  RETURN n
  }
  WITH n LIMIT $maxStarts
  RETURN collect(n) AS tos
}
WITH policy, unlinkedTypes, maskedTypes, allowed, froms, tos, [n IN froms WHERE n IN tos] AS same
OPTIONAL MATCH (fromId:Id {customer: $customer, type: $fromWhereType, value: $fromWhereValue})
  WHERE $fromKeyType IS NULL
OPTIONAL MATCH (toId:Id {customer: $customer, type: $toWhereType, value: $toWhereValue})
  WHERE $toKeyType IS NULL
WITH policy, unlinkedTypes, maskedTypes, froms, tos, same, coalesce(fromId, head(froms)) AS a, coalesce(toId, head(tos)) AS b,
  CASE WHEN $fromKeyType IS NULL THEN $fromSchema END AS aHolders, CASE WHEN $toKeyType IS NULL THEN $toSchema END AS bHolders,
  allowed AND size(same) = 0 AND 0 < size(froms) <= $maxNodes AND 0 < size(tos) <= $maxNodes AS go
CALL (a, b, aHolders, bHolders, unlinkedTypes, go) {
  WITH a, b, aHolders, bHolders, unlinkedTypes WHERE go
  UNWIND [a, b] AS end
  MATCH path = (end)-[:LINKED*0..3]-(reached)
  WHERE all(v IN nodes(path) WHERE v = end OR NOT (v:Id AND v.type IN unlinkedTypes))
    AND all(r IN relationships(path) WHERE (aHolders IS NULL OR endNode(r) <> a OR startNode(r).schema = aHolders)
      AND (bHolders IS NULL OR endNode(r) <> b OR startNode(r).schema = bHolders))
  WITH DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
  WITH count(reached) AS vertices, count(CASE WHEN reached:IdNode THEN 1 END) AS nodes
  RETURN nodes > $maxNodes OR vertices - nodes > $maxIds AS tooLarge2
}
CALL (a, b, aHolders, bHolders, unlinkedTypes, maskedTypes, go, tooLarge2) {
  WITH a, b, aHolders, bHolders, unlinkedTypes WHERE go AND NOT tooLarge2
  MATCH p = allShortestPaths((a)-[:LINKED*..6]-(b))
  WHERE all(v IN nodes(p) WHERE v = a OR v = b OR NOT (v:Id AND v.type IN unlinkedTypes))
    AND all(r IN relationships(p) WHERE (aHolders IS NULL OR endNode(r) <> a OR startNode(r).schema = aHolders)
      AND (bHolders IS NULL OR endNode(r) <> b OR startNode(r).schema = bHolders))
  WITH p LIMIT $maxChains
  WITH [v IN nodes(p) WHERE NOT (v:Id AND (v = a OR v = b)) | CASE WHEN v:Id THEN [v.type, v.value] ELSE [v.schema, v.keyType, v.keyId] END] AS chain
  WITH chain, [v IN chain | CASE WHEN v[-2] IN maskedTypes THEN v[..-1] + [''] ELSE v END] AS seen
  ORDER BY [i IN range(1, size(seen) - 1, 2) | seen[i]] + [i IN range(0, size(seen) - 1, 2) | seen[i]]
  RETURN collect(chain)[..1] AS chains2, count(*) AS read2
}
WITH policy, unlinkedTypes, maskedTypes, froms, tos, same, a, b, aHolders, bHolders, chains2, read2, tooLarge2, go AND NOT tooLarge2 AND size(chains2) = 0 AS go2
CALL (a, b, aHolders, bHolders, unlinkedTypes, go2) {
  WITH a, b, aHolders, bHolders, unlinkedTypes WHERE go2
  UNWIND [a, b] AS end
  MATCH path = (end)-[:LINKED*0..7]-(reached)
  WHERE all(v IN nodes(path) WHERE v = end OR NOT (v:Id AND v.type IN unlinkedTypes))
    AND all(r IN relationships(path) WHERE (aHolders IS NULL OR endNode(r) <> a OR startNode(r).schema = aHolders)
      AND (bHolders IS NULL OR endNode(r) <> b OR startNode(r).schema = bHolders))
  WITH DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
  WITH count(reached) AS vertices, count(CASE WHEN reached:IdNode THEN 1 END) AS nodes
  RETURN nodes > $maxNodes OR vertices - nodes > $maxIds AS tooLarge6
}
CALL (a, b, aHolders, bHolders, unlinkedTypes, maskedTypes, go2, tooLarge6) {
  WITH a, b, aHolders, bHolders, unlinkedTypes WHERE go2 AND NOT tooLarge6
  MATCH p = allShortestPaths((a)-[:LINKED*..14]-(b))
  WHERE all(v IN nodes(p) WHERE v = a OR v = b OR NOT (v:Id AND v.type IN unlinkedTypes))
    AND all(r IN relationships(p) WHERE (aHolders IS NULL OR endNode(r) <> a OR startNode(r).schema = aHolders)
      AND (bHolders IS NULL OR endNode(r) <> b OR startNode(r).schema = bHolders))
  WITH p LIMIT $maxChains
  WITH [v IN nodes(p) WHERE NOT (v:Id AND (v = a OR v = b)) | CASE WHEN v:Id THEN [v.type, v.value] ELSE [v.schema, v.keyType, v.keyId] END] AS chain
  WITH chain, [v IN chain | CASE WHEN v[-2] IN maskedTypes THEN v[..-1] + [''] ELSE v END] AS seen
  ORDER BY [i IN range(1, size(seen) - 1, 2) | seen[i]] + [i IN range(0, size(seen) - 1, 2) | seen[i]]
  RETURN collect(chain)[..1] AS chains6, count(*) AS read6
}
WITH policy, unlinkedTypes, maskedTypes, froms, tos, same, a, b, aHolders, bHolders, chains2, chains6, read2, read6, tooLarge2, tooLarge6, go2 AND NOT tooLarge6 AND size(chains6) = 0 AS go6
CALL (a, b, aHolders, bHolders, unlinkedTypes, go6) {
  WITH a, b, aHolders, bHolders, unlinkedTypes WHERE go6
  UNWIND [a, b] AS end
  MATCH path = (end)-[:LINKED*0..17]-(reached)
  WHERE all(v IN nodes(path) WHERE v = end OR NOT (v:Id AND v.type IN unlinkedTypes))
    AND all(r IN relationships(path) WHERE (aHolders IS NULL OR endNode(r) <> a OR startNode(r).schema = aHolders)
      AND (bHolders IS NULL OR endNode(r) <> b OR startNode(r).schema = bHolders))
  WITH DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
  WITH count(reached) AS vertices, count(CASE WHEN reached:IdNode THEN 1 END) AS nodes
  RETURN nodes > $maxNodes OR vertices - nodes > $maxIds AS tooLarge16
}
CALL (a, b, aHolders, bHolders, unlinkedTypes, maskedTypes, go6, tooLarge16) {
  WITH a, b, aHolders, bHolders, unlinkedTypes WHERE go6 AND NOT tooLarge16
  MATCH p = allShortestPaths((a)-[:LINKED*..34]-(b))
  WHERE all(v IN nodes(p) WHERE v = a OR v = b OR NOT (v:Id AND v.type IN unlinkedTypes))
    AND all(r IN relationships(p) WHERE (aHolders IS NULL OR endNode(r) <> a OR startNode(r).schema = aHolders)
      AND (bHolders IS NULL OR endNode(r) <> b OR startNode(r).schema = bHolders))
  WITH p LIMIT $maxChains
  WITH [v IN nodes(p) WHERE NOT (v:Id AND (v = a OR v = b)) | CASE WHEN v:Id THEN [v.type, v.value] ELSE [v.schema, v.keyType, v.keyId] END] AS chain
  WITH chain, [v IN chain | CASE WHEN v[-2] IN maskedTypes THEN v[..-1] + [''] ELSE v END] AS seen
  ORDER BY [i IN range(1, size(seen) - 1, 2) | seen[i]] + [i IN range(0, size(seen) - 1, 2) | seen[i]]
  RETURN collect(chain)[..1] AS chains16, count(*) AS read16
}
WITH policy, unlinkedTypes, maskedTypes, froms, tos, same, a, b, aHolders, bHolders, chains2, chains6, chains16, read2, read6, read16, tooLarge2, tooLarge6, tooLarge16, go6 AND NOT tooLarge16 AND size(chains16) = 0 AS go16
CALL (a, b, aHolders, bHolders, unlinkedTypes, go16) {
  WITH a, b, aHolders, bHolders, unlinkedTypes WHERE go16
  UNWIND [a, b] AS end
  MATCH path = (end)-[:LINKED*0..51]-(reached)
  WHERE all(v IN nodes(path) WHERE v = end OR NOT (v:Id AND v.type IN unlinkedTypes))
    AND all(r IN relationships(path) WHERE (aHolders IS NULL OR endNode(r) <> a OR startNode(r).schema = aHolders)
      AND (bHolders IS NULL OR endNode(r) <> b OR startNode(r).schema = bHolders))
  WITH DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
  WITH count(reached) AS vertices, count(CASE WHEN reached:IdNode THEN 1 END) AS nodes
  RETURN nodes > $maxNodes OR vertices - nodes > $maxIds AS tooLarge50
}
CALL (a, b, aHolders, bHolders, unlinkedTypes, maskedTypes, go16, tooLarge50) {
  WITH a, b, aHolders, bHolders, unlinkedTypes WHERE go16 AND NOT tooLarge50
  MATCH p = allShortestPaths((a)-[:LINKED*..102]-(b))
  WHERE all(v IN nodes(p) WHERE v = a OR v = b OR NOT (v:Id AND v.type IN unlinkedTypes))
    AND all(r IN relationships(p) WHERE (aHolders IS NULL OR endNode(r) <> a OR startNode(r).schema = aHolders)
      AND (bHolders IS NULL OR endNode(r) <> b OR startNode(r).schema = bHolders))
  WITH p LIMIT $maxChains
  WITH [v IN nodes(p) WHERE NOT (v:Id AND (v = a OR v = b)) | CASE WHEN v:Id THEN [v.type, v.value] ELSE [v.schema, v.keyType, v.keyId] END] AS chain
  WITH chain, [v IN chain | CASE WHEN v[-2] IN maskedTypes THEN v[..-1] + [''] ELSE v END] AS seen
  ORDER BY [i IN range(1, size(seen) - 1, 2) | seen[i]] + [i IN range(0, size(seen) - 1, 2) | seen[i]]
  RETURN collect(chain)[..1] AS chains50, count(*) AS read50
}
WITH policy, froms, tos, same, chains2 + chains6 + chains16 + chains50 AS chains, read2 + read6 + read16 + read50 AS read,
  tooLarge2 OR tooLarge6 OR tooLarge16 OR tooLarge50 AS tooLarge
WITH policy, froms, tos, same, chains, tooLarge, read >= $maxChains AS exact
RETURN policy, size(froms) > 0 AS fromFound, size(tos) > 0 AS toFound, size(froms) AS fromCount, size(tos) AS toCount,
  [n IN same | {schema: n.schema, type: n.keyType, id: n.keyId}] AS same,
  tooLarge,
  CASE WHEN exact THEN null ELSE head(chains) END AS chain,
  CASE WHEN exact THEN [n IN froms | elementId(n)] ELSE [] END AS fromElements,
  CASE WHEN exact THEN [n IN tos | elementId(n)] ELSE [] END AS toElements
