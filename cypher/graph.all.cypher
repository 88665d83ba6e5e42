// params: customer, schema, keyType, keyId, whereType, whereValue, authenticated, unlinkedTypes, hiddenTypes, maxNodes, maxIds, answerBytes
// The explorer's step ALL (docs/explorer.md), in one statement with what it is checked against, as graph.one.cypher
// is for step ONE, which says what it answers. The nodes are those search.all.cypher reaches from the same origin
// (the keyed node, or the Id vertex of a `where`), by the same traversal under the same bounds
// (search.traverse-all.cypher says why this shape, and what holdersSchema is), each with its level: its distance
// from the origin in nodes (`hops` in LINKED relationships: from a node, hops / 2; from an Id vertex, whose holders
// are 1 hop away, (hops - 1) / 2; integer division gives both as hops / 2).
//
// Why two traversals. The first only counts: distinct end nodes, lazily, so the LIMIT stops it once the component
// is proven too large. The distances come from a second traversal, run only within the bounds:
// `min(length(path))` per end node is also planned as VarLengthExpand(Pruning,BFS,All), which then gives each vertex
// its depth, once, breadth first; but the aggregation is eager, so it would walk a component of any size before a
// LIMIT after it could stop it. Both traversals expand each vertex once, however many vertices lead to it: a
// shortest-path search (ANY SHORTEST) does not, and spent 0.5 s from an ID with 1,000 holders that all share a
// device.
//
// The second traversal reads what is committed when it runs, as every statement does: a node deleted since the
// first is not reached again, and one reached but deleted before its properties are read has none (a null
// schema), and the caller leaves it out. The answer is the union of both traversals. Neo4j does not protect a
// traversal from concurrent writes: reading an ID's holders while a writer deletes one of them can end the read of
// that ID's links early, and the nodes behind it go unreached by that traversal. The other traversal reads that ID
// again a moment later; a node only the first reached is placed one level beyond the deepest the second placed.
//
// Memory. Every transaction draws from one pool (716.8 MiB on a 1 GiB heap), and a statement must need a fraction
// of it at any size the bounds allow. So the union is made by list operations, not by an aggregation or DISTINCT
// over the nodes in a subquery: those keep, for each node, every variable the subquery imports (the lists of nodes
// among them) as part of its grouping key, and Neo4j counts each such list once per node: quadratic, 350 MB at
// 1,000 nodes and the whole pool from 1,500. The only aggregation here, `min(length(path))`, imports no list longer
// than the origins (one) and the unlinked types. `NOT node IN placedNodes` costs no scan of the list per node:
// Neo4j keeps a set of a list that an IN tests row after row. At 10,000 nodes the statement's memory peaks near
// 10 MB (test/neo4j/graph-memory.neo4j.test.ts bounds it at 2,000).
CALL () {
  RETURN COLLECT {
           MATCH (idType:IdType {customer: $customer})
           WHERE EXISTS { (idType)<-[:DECLARES]-(:Schema) }
           RETURN {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders}
         } AS declared,
         COLLECT {
           MATCH (settings:Settings {customer: $customer})
           RETURN {requireToken: settings.requireToken, timezone: settings.timezone}
         } AS settings,
         COLLECT {
           MATCH (blocklist:Blocklist {customer: $customer})
           RETURN blocklist.rules
         } AS blocklist,
         COLLECT {
           MATCH (schema:Schema {customer: $customer, schemaId: $schema})
           RETURN {
             schemaId: schema.schemaId,
             idTypes: [(schema)-[declares:DECLARES]->(idType:IdType) | {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders, position: declares.position}]
           }
         } AS schema
}
WITH declared, settings, blocklist, schema, [type IN declared WHERE type.secure | type.type] AS secureTypes,
  [type IN declared WHERE NOT type.links | type.type] AS declaredUnlinked
WITH declared, {secureTypes: secureTypes, unlinkedTypes: declaredUnlinked, settings: settings, blocklist: blocklist, schema: schema} AS policy,
  coalesce($unlinkedTypes, declaredUnlinked) AS unlinkedTypes,
  coalesce($hiddenTypes, CASE WHEN $authenticated THEN [] ELSE secureTypes END) AS hiddenTypes,
  $authenticated OR NOT (coalesce(settings[0].requireToken, false) OR coalesce($keyType IN secureTypes, false) OR coalesce($whereType IN secureTypes, false)) AS allowed
OPTIONAL MATCH (keyed:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
USING INDEX keyed:IdNode(customer, schema, keyType, keyId)
WHERE allowed
  AND ($whereType IS NULL OR EXISTS { (keyed)-[:LINKED]->(:Id {type: $whereType, value: $whereValue}) })
OPTIONAL MATCH (source:Id {customer: $customer, type: $whereType, value: $whereValue})
USING INDEX source:Id(customer, type, value)
WHERE allowed AND $keyType IS NULL
WITH declared, policy, hiddenTypes, unlinkedTypes, keyed, source, CASE WHEN keyed IS NULL THEN COLLECT {
  MATCH (source)<-[:LINKED]-(holder:IdNode)
  WHERE $schema IS NULL OR holder.schema = $schema
  RETURN holder
  LIMIT $maxNodes + 1
} ELSE [keyed] END AS starts
WITH declared, policy, hiddenTypes, unlinkedTypes, starts,
  CASE WHEN size(starts) = 0 OR size(starts) > $maxNodes THEN [] WHEN keyed IS NOT NULL THEN [keyed] ELSE [source] END AS origins,
  CASE WHEN keyed IS NULL AND $schema IS NOT NULL AND $whereType IN unlinkedTypes THEN $schema END AS holdersSchema
WITH declared, policy, hiddenTypes, unlinkedTypes, starts, origins, holdersSchema, COLLECT {
  UNWIND origins AS origin
  MATCH path = (origin)-[:LINKED*0..20000001]-(reached)
  WHERE all(vertex IN nodes(path) WHERE vertex = origin OR NOT (vertex:Id AND vertex.type IN unlinkedTypes))
    AND all(link IN relationships(path) WHERE holdersSchema IS NULL OR endNode(link) <> origin OR startNode(link).schema = holdersSchema)
  RETURN DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
} AS vertices
WITH declared, policy, hiddenTypes, unlinkedTypes, starts, origins, holdersSchema, vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH declared, policy, hiddenTypes, unlinkedTypes, starts, origins, holdersSchema, vertices, nodes,
  CASE WHEN size(starts) > $maxNodes THEN size(starts) ELSE size(nodes) END AS visited
WITH declared, policy, hiddenTypes, unlinkedTypes, starts, origins, holdersSchema, nodes, visited, size(vertices) - size(nodes) + COUNT {
  UNWIND CASE WHEN size(unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN unlinkedTypes AND NOT id IN origins
  RETURN DISTINCT id
} AS idsRead
WITH declared, policy, hiddenTypes, starts, nodes, visited, idsRead, COLLECT {
  UNWIND origins AS origin
  MATCH path = (origin)-[:LINKED*0..20000001]-(reached)
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
    AND all(vertex IN nodes(path) WHERE vertex = origin OR NOT (vertex:Id AND vertex.type IN unlinkedTypes))
    AND all(link IN relationships(path) WHERE holdersSchema IS NULL OR endNode(link) <> origin OR startNode(link).schema = holdersSchema)
  WITH reached AS node, min(length(path)) AS hops
  WHERE node:IdNode
  RETURN {node: node, level: hops / 2}
} AS placed
WITH declared, policy, hiddenTypes, starts, nodes, visited, idsRead, placed, [p IN placed | p.node] AS placedNodes,
  reduce(deepest = 0, p IN placed | CASE WHEN p.level > deepest THEN p.level ELSE deepest END) AS deepest
WITH declared, policy, hiddenTypes, starts, visited, idsRead,
  placed + [node IN nodes WHERE visited <= $maxNodes AND idsRead <= $maxIds AND NOT node IN placedNodes | {node: node, level: deepest + 1}] AS levelled
WITH declared, policy, hiddenTypes, visited, idsRead, COLLECT {
  UNWIND levelled AS reached
  WITH reached.node AS node, reached.level AS level
  RETURN {node: node, level: level, start: node IN starts, schema: node.schema, keyType: node.keyType, keyId: node.keyId,
    idChars: reduce(chars = 0, id IN COLLECT { MATCH (node)-[:LINKED]->(id:Id) WHERE NOT id.type IN hiddenTypes RETURN id } | chars + 20 + size(id.type) + size(id.value))}
} AS found
// From here on, the same as graph.one.cypher.
WITH declared, policy, visited, idsRead, found, $answerBytes IS NULL OR reduce(size = 64, node IN found |
  size + 64 + coalesce(size(node.schema), 0) + coalesce(size(node.keyType), 0) + CASE WHEN node.keyType IN hiddenTypes THEN 0 ELSE coalesce(size(node.keyId), 0) END + node.idChars
) <= $answerBytes AS withIds
RETURN policy, declared AS types, visited, idsRead, withIds, COLLECT {
  UNWIND found AS placed
  WITH placed, placed.node AS node
  RETURN {ref: elementId(node), level: placed.level, start: placed.start, schema: placed.schema, keyType: placed.keyType, keyId: placed.keyId,
    idCount: COUNT { (node)-[:LINKED]->() }, idChars: placed.idChars,
    ids: CASE WHEN withIds THEN COLLECT { MATCH (node)-[:LINKED]->(id:Id) RETURN {type: id.type, id: id.value} } END}
} AS nodes
