// params: policies, searches, maxNodes, maxIds
// Step ALL, in one statement with what the search is checked against: the customer's policy, read as
// customer.policy.cypher reads it (with the start's schema), which the caller checks the start against before it
// uses the answer; then the start nodes, as search.one.cypher finds them; then what search.traverse-all.cypher does
// from the keyed node, or from the ID of a where condition, which says why the traversal has its shape and what the
// answer holds. One statement instead of three saves two Bolt round trips.
//
// Many searches in one, each with its policy read once for each customer and schema among them, as in
// search.one.cypher, which says what `searches` and `policies` hold and why each start is found by a hint.
//
// The policy decides the types the traversal never steps through (those declared `links: false`) and those it
// hides (the secure ones, from a caller without a token: `authenticated` false), as the domain's searchTypes
// does. A search the domain refuses for the caller (a token the customer requires, or a start from a secure type,
// missing) finds no start node, so that it costs no traversal. `exclude` leaves out the IDs of the start nodes.
// No start node: nothing is visited. More than maxNodes start nodes: `visited` is their number, and nothing more is
// read.
//
// The traversal is a COLLECT subquery, so that the row with the policy stays when it reaches nothing; its shape
// (distinct end nodes, lower bound 0, LIMIT) is still planned as VarLengthExpand(Pruning,BFS,All), with the
// unlinked types' predicate inside it (test/store-contract/neo4j.neo4j.test.ts checks the plan).
// The IDs are gathered as search.traverse-all.cypher says: from the reached Id vertices, or, with `exclude` or
// `links: false` types, by a second walk from the reached nodes.
UNWIND $policies AS asked
WITH asked, COLLECT {
         MATCH (idType:IdType {customer: asked.customer})
         WHERE idType.secure AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
         RETURN idType.name
       } AS secureTypes,
       COLLECT {
         MATCH (idType:IdType {customer: asked.customer})
         WHERE idType.links = false AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
         RETURN idType.name
       } AS unlinkedTypes,
       COLLECT {
         MATCH (settings:Settings {customer: asked.customer})
         RETURN {requireToken: settings.requireToken, timezone: settings.timezone}
       } AS settings,
       COLLECT {
         MATCH (blocklist:Blocklist {customer: asked.customer})
         RETURN blocklist.rules
       } AS blocklist,
       COLLECT {
         MATCH (schema:Schema {customer: asked.customer, schemaId: asked.schema})
         RETURN {
           schemaId: schema.schemaId,
           idTypes: [(schema)-[declares:DECLARES]->(idType:IdType) | {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders, position: declares.position}]
         }
       } AS schema
UNWIND [search IN $searches WHERE search.policyIndex = asked.index] AS search
WITH search, {secureTypes: secureTypes, unlinkedTypes: unlinkedTypes, settings: settings, blocklist: blocklist, schema: schema} AS policy,
     unlinkedTypes,
     CASE WHEN search.authenticated THEN [] ELSE secureTypes END AS hiddenTypes,
     search.authenticated
       OR NOT (coalesce(settings[0].requireToken, false) OR coalesce(search.keyType IN secureTypes, false) OR coalesce(search.whereType IN secureTypes, false)) AS allowed
OPTIONAL MATCH (keyed:IdNode {customer: search.customer, schema: search.schema, keyType: search.keyType, keyId: search.keyId})
USING INDEX keyed:IdNode(customer, schema, keyType, keyId)
WHERE allowed
  AND (search.whereType IS NULL OR EXISTS { (keyed)-[:LINKED]->(:Id {type: search.whereType, value: search.whereValue}) })
OPTIONAL MATCH (source:Id {customer: search.customer, type: search.whereType, value: search.whereValue})
USING INDEX source:Id(customer, type, value)
WHERE allowed AND search.keyType IS NULL
WITH search, policy, hiddenTypes, unlinkedTypes, keyed, source, CASE WHEN keyed IS NULL THEN COLLECT {
  MATCH (source)<-[:LINKED]-(holder:IdNode)
  WHERE search.schema IS NULL OR holder.schema = search.schema
  RETURN holder
  LIMIT $maxNodes + 1
} ELSE [keyed] END AS starts
WITH search, policy, hiddenTypes, unlinkedTypes, starts,
  CASE WHEN size(starts) = 0 OR size(starts) > $maxNodes THEN [] WHEN keyed IS NOT NULL THEN [keyed] ELSE [source] END AS origins,
  CASE WHEN keyed IS NULL AND search.schema IS NOT NULL AND search.whereType IN unlinkedTypes THEN search.schema END AS holdersSchema
WITH search, policy, hiddenTypes, unlinkedTypes, starts, origins, COLLECT {
  UNWIND origins AS origin
  MATCH path = (origin)-[:LINKED*0..20000001]-(reached)
  WHERE all(vertex IN nodes(path) WHERE vertex = origin OR NOT (vertex:Id AND vertex.type IN unlinkedTypes))
    AND all(link IN relationships(path) WHERE holdersSchema IS NULL OR endNode(link) <> origin OR startNode(link).schema = holdersSchema)
  RETURN DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
} AS vertices
WITH search, policy, hiddenTypes, unlinkedTypes, starts, origins, vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH search, policy, hiddenTypes, unlinkedTypes, starts, origins, vertices, nodes,
  CASE WHEN size(starts) > $maxNodes THEN size(starts) ELSE size(nodes) END AS visited
WITH search, policy, hiddenTypes, unlinkedTypes, starts, vertices, nodes, visited, size(vertices) - size(nodes) + COUNT {
  UNWIND CASE WHEN size(unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN unlinkedTypes AND NOT id IN origins
  RETURN DISTINCT id
} AS idsRead
WITH search, policy, hiddenTypes, starts, visited, idsRead, vertices, nodes,
  CASE WHEN visited > $maxNodes OR idsRead > $maxIds THEN 'none' WHEN search.exclude OR size(unlinkedTypes) > 0 THEN 'held' ELSE 'reached' END AS gather
WITH search, policy, hiddenTypes, visited, idsRead, [vertex IN CASE gather WHEN 'reached' THEN vertices ELSE [] END WHERE vertex:Id] + COLLECT {
  UNWIND CASE gather WHEN 'held' THEN nodes ELSE [] END AS target
  MATCH (target)-[:LINKED]->(id:Id)
  WHERE NOT (search.exclude AND target IN starts)
  RETURN DISTINCT id
} AS held
WITH search, policy, visited, idsRead, COLLECT {
  UNWIND held AS id
  WITH id
  WHERE (search.havingType IS NULL OR id.type = search.havingType) AND NOT id.type IN hiddenTypes
  WITH id.type AS type, collect(id.value) AS idValues
  RETURN {type: type, ids: idValues}
} AS ids
WITH search, policy, visited, idsRead, ids, reduce(n = 0, group IN ids | n + size(group.ids)) AS idCount,
  reduce(chars = 0, group IN ids | chars + size(group.ids) * size(group.type) + reduce(valueChars = 0, value IN group.ids | valueChars + size(value))) AS idChars
RETURN search.index AS index, CASE WHEN search.sendsPolicy THEN policy END AS policy, visited, idsRead, idCount, idChars,
  CASE WHEN search.answerBytes IS NULL OR 32 + 20 * idCount + idChars <= search.answerBytes THEN ids ELSE [] END AS ids
