// params: policies, searches, maxNodes, maxIds
// Step ONE, in one statement with what the search is checked against: the customer's policy, read as
// customer.policy.cypher reads it (with the start's schema), which the caller checks the start against before it
// uses the answer; then the start nodes, as search.start-by-key.cypher (a keyed node: and, when a where condition is
// also given, only if it holds that ID) or search.start-by-where.cypher (every node holding the ID, only those of
// the schema when one is named, at most maxNodes + 1) find them; then what search.traverse-one.cypher does from
// them, or search.traverse-one-from-id.cypher from the ID when the start nodes are all its holders, which say why
// the traversal has its shape and what the answer holds. One statement instead of three saves two Bolt round trips.
//
// Many searches in one: `searches` is a list of maps, each with index, customer, schema, keyType, keyId, whereType,
// whereValue, exclude, authenticated, havingType, answerBytes, policyIndex and sendsPolicy (keyType and keyId null
// for a search from an ID); one row per search, with its index. Searches that arrive while others run are sent
// together, in one statement and one round trip (SharedSearches in src/store/neo4j/neo4j-search.ts). The policy is
// read once for each customer and schema among them (`policies`: index, customer, schema, null when the start names
// none; a search names its own by policyIndex), and sent back once, in the row of the search whose sendsPolicy is
// true: read and decoded for each search, it cost as much as the search. Each keyed node and each ID is found
// through its unique index, by a hint: for a statement of several searches on a large graph, Neo4j 5.26 otherwise
// planned one scan of every keyed node, joined with the searches.
//
// The policy decides the types the traversal never steps through (those declared `links: false`) and those it
// hides (the secure ones, from a caller without a token: `authenticated` false), as the domain's searchTypes
// does. A search the domain refuses for the caller (a token the customer requires, or a start from a secure type,
// missing) finds no start node, so that it costs no traversal. `exclude` leaves out the IDs of the start nodes.
// No start node: nothing is visited. More than maxNodes start nodes: `visited` is their number, and nothing more is
// read.
//
// The traversals are COLLECT subqueries, so that the row with the policy stays when they reach nothing; their shape
// (distinct end nodes, lower bound 0, LIMIT) is still planned as VarLengthExpand(Pruning,BFS,All), with the
// unlinked types' predicate inside it (test/store-contract/neo4j.neo4j.test.ts checks the plan). Of the two, the
// one that does not fit the search has no vertex to start from.
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
WITH search, policy, hiddenTypes, unlinkedTypes, source, CASE WHEN keyed IS NULL THEN COLLECT {
  MATCH (source)<-[:LINKED]-(holder:IdNode)
  WHERE search.schema IS NULL OR holder.schema = search.schema
  RETURN holder
  LIMIT $maxNodes + 1
} ELSE [keyed] END AS starts
WITH search, policy, hiddenTypes, unlinkedTypes, starts,
  CASE WHEN size(starts) = 0 OR size(starts) > $maxNodes THEN [] WHEN source IS NOT NULL AND search.schema IS NULL THEN [source] ELSE [] END AS fromSource,
  CASE WHEN size(starts) > $maxNodes OR (source IS NOT NULL AND search.schema IS NULL) THEN [] ELSE starts END AS fromStarts
WITH search, policy, hiddenTypes, unlinkedTypes, starts, fromSource, COLLECT {
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
WITH search, policy, hiddenTypes, unlinkedTypes, starts, fromSource, vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH search, policy, hiddenTypes, unlinkedTypes, starts, fromSource, vertices, nodes,
  CASE WHEN size(starts) > $maxNodes THEN size(starts) ELSE size(nodes) END AS visited
WITH search, policy, hiddenTypes, starts, nodes, visited, size(vertices) - size(nodes) + COUNT {
  UNWIND CASE WHEN size(unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN unlinkedTypes AND NOT id IN fromSource
  RETURN DISTINCT id
} AS idsRead
WITH search, policy, visited, idsRead, COLLECT {
  UNWIND nodes AS target
  MATCH (target)-[:LINKED]->(id:Id)
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
    AND NOT (search.exclude AND target IN starts)
    AND (search.havingType IS NULL OR id.type = search.havingType)
    AND NOT id.type IN hiddenTypes
  WITH DISTINCT id
  WITH id.type AS type, collect(id.value) AS idValues
  RETURN {type: type, ids: idValues}
} AS ids
WITH search, policy, visited, idsRead, ids, reduce(n = 0, group IN ids | n + size(group.ids)) AS idCount,
  reduce(chars = 0, group IN ids | chars + size(group.ids) * size(group.type) + reduce(valueChars = 0, value IN group.ids | valueChars + size(value))) AS idChars
RETURN search.index AS index, CASE WHEN search.sendsPolicy THEN policy END AS policy, visited, idsRead, idCount, idChars,
  CASE WHEN search.answerBytes IS NULL OR 32 + 20 * idCount + idChars <= search.answerBytes THEN ids ELSE [] END AS ids
