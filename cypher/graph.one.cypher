// params: customer, schema, keyType, keyId, whereType, whereValue, authenticated, unlinkedTypes, hiddenTypes, maxNodes, maxIds, answerBytes
// The explorer's step ONE (docs/explorer.md), in one statement with what it is checked against, as search.one.cypher
// is for the search: the customer's policy, read as customer.policy.cypher reads it but for the blocklist's digest
// (with the start's schema), which the caller checks the start against before it uses the answer; the customer's
// declared ID types (`types`), which the answer describes; the start nodes, found only when the policy lets the
// caller start there (`allowed`); the nodes the search's step ONE reaches from them, under the same bounds and by the
// same traversals (search.one.cypher says why they have their shape); and each node with what cutGraph orders by
// (src/domain/graph.ts): whether it is a start node (level 0; every other node is level 1), schema, key, how many IDs
// it holds (the relationship count of the vertex), and `idChars`, what its IDs but those of the hidden types add to
// the answer (20 characters each, with type and value), which graphAnswerSize counts before they are sent.
//
// The types the traversal never steps through are the policy's `links: false` types, or `unlinkedTypes` when given;
// those hidden are the secure ones for a caller without a token (`authenticated` false), or `hiddenTypes` when
// given. A caller that read the policy itself gives both, and `authenticated` true.
//
// When every node reached (within the bounds) fits in `answerBytes` as graphAnswerSize counts them (null: no
// bound), their IDs come in the same statement (`withIds`), every ID each holds, its key included; otherwise none,
// and the caller takes room for the nodes it answers before it reads theirs (graph.ids.cypher). A person's graph
// fits the room every request may use: one statement, one round trip.
//
// The nodes are those of two traversals: Neo4j does not protect a traversal from concurrent writes, and reading an
// ID's holders while a writer deletes one of them can end the read of that ID's links early. The second traversal,
// only within the bounds, reads them again a moment later. A node reached but deleted before its properties are read
// has none (a null schema), and the caller leaves it out. The nodes of both are joined by list operations, not by a
// DISTINCT over them in a subquery, which would count the imported lists once per node (graph.all.cypher says why).
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
WITH declared, policy, hiddenTypes, unlinkedTypes, source, CASE WHEN keyed IS NULL THEN COLLECT {
  MATCH (source)<-[:LINKED]-(holder:IdNode)
  WHERE $schema IS NULL OR holder.schema = $schema
  RETURN holder
  LIMIT $maxNodes + 1
} ELSE [keyed] END AS starts
WITH declared, policy, hiddenTypes, unlinkedTypes, starts,
  CASE WHEN size(starts) = 0 OR size(starts) > $maxNodes THEN [] WHEN source IS NOT NULL AND $schema IS NULL THEN [source] ELSE [] END AS fromSource,
  CASE WHEN size(starts) > $maxNodes OR (source IS NOT NULL AND $schema IS NULL) THEN [] ELSE starts END AS fromStarts
WITH declared, policy, hiddenTypes, unlinkedTypes, starts, fromSource, fromStarts, COLLECT {
  UNWIND fromStarts AS start
  MATCH path = (start)-[:LINKED*0..3]-(reached)
  WHERE all(vertex IN nodes(path) WHERE NOT (vertex:Id AND vertex.type IN unlinkedTypes))
  RETURN DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
} + COLLECT {
  UNWIND fromSource AS origin
  MATCH path = (origin)-[:LINKED*0..4]-(reached)
  WHERE all(vertex IN nodes(path) WHERE vertex = origin OR NOT (vertex:Id AND vertex.type IN unlinkedTypes))
  RETURN DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
} AS vertices
WITH declared, policy, hiddenTypes, unlinkedTypes, starts, fromSource, fromStarts, vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH declared, policy, hiddenTypes, unlinkedTypes, starts, fromSource, fromStarts, vertices, nodes,
  CASE WHEN size(starts) > $maxNodes THEN size(starts) ELSE size(nodes) END AS visited
WITH declared, policy, hiddenTypes, unlinkedTypes, starts, fromSource, fromStarts, nodes, visited, size(vertices) - size(nodes) + COUNT {
  UNWIND CASE WHEN size(unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN unlinkedTypes AND NOT id IN fromSource
  RETURN DISTINCT id
} AS idsRead
WITH declared, policy, hiddenTypes, starts, visited, idsRead, nodes, COLLECT {
  UNWIND fromStarts AS start
  MATCH path = (start)-[:LINKED*0..3]-(again:IdNode)
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
    AND all(vertex IN nodes(path) WHERE NOT (vertex:Id AND vertex.type IN unlinkedTypes))
  RETURN DISTINCT again
} + COLLECT {
  UNWIND fromSource AS origin
  MATCH path = (origin)-[:LINKED*0..4]-(again:IdNode)
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
    AND all(vertex IN nodes(path) WHERE vertex = origin OR NOT (vertex:Id AND vertex.type IN unlinkedTypes))
  RETURN DISTINCT again
} AS again
WITH declared, policy, hiddenTypes, starts, visited, idsRead,
  CASE WHEN visited <= $maxNodes AND idsRead <= $maxIds THEN nodes + [node IN again WHERE NOT node IN nodes] ELSE [] END AS reached
WITH declared, policy, hiddenTypes, visited, idsRead, COLLECT {
  UNWIND reached AS node
  RETURN {node: node, level: null, start: node IN starts, schema: node.schema, keyType: node.keyType, keyId: node.keyId,
    idChars: reduce(chars = 0, id IN COLLECT { MATCH (node)-[:LINKED]->(id:Id) WHERE NOT id.type IN hiddenTypes RETURN id } | chars + 20 + size(id.type) + size(id.value))}
} AS found
// From here on, the same as graph.all.cypher.
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
