// params: policies, searches, maxNodes, maxIds
// Step ONE from a keyed node, in one statement with what the search is checked against: the customer's policy,
// read as customer.policy.cypher reads it (with the key's schema), which the caller checks the start against
// before it uses the answer; then the keyed node (search.start-by-key.cypher: and, when a where condition is also
// given, only if it holds that ID); then what search.traverse-one.cypher does from it, which says why the traversal
// has its shape and what the answer holds. One statement instead of three saves two Bolt round trips.
//
// Many searches in one: `searches` is a list of maps, each with index, customer, schema, keyType, keyId, whereType,
// whereValue, exclude, authenticated, havingType, answerBytes, policyIndex and sendsPolicy; one row per search,
// with its index. Searches that arrive while others run are sent together, in one statement and one round trip
// (KeySearches in src/store/neo4j/neo4j-search.ts). The policy is read once for each customer and schema among
// them (`policies`: index, customer, schema; a search names its own by policyIndex), and sent back once, in the
// row of the search whose sendsPolicy is true: read and decoded for each search, it cost as much as the search.
// Each start is found through the unique index, by a hint: for a statement of several searches on a large graph,
// Neo4j 5.26 otherwise planned one scan of every keyed node, joined with the searches.
//
// The policy decides the types the traversal never steps through (those declared `links: false`) and those it
// hides (the secure ones, from a caller without a token: `authenticated` false), as the domain's searchTypes
// does. A search the domain refuses for the caller (a token the customer requires, or a start from a secure type,
// missing) finds no start node, so that it costs no traversal. `exclude` leaves out the IDs of the start node.
// No start node: nothing is visited.
//
// The traversal is a COLLECT subquery, so that the row with the policy stays when it reaches nothing; its shape
// (distinct end nodes, lower bound 0, LIMIT) is still planned as VarLengthExpand(Pruning,BFS,All), with the
// unlinked types' predicate inside it (test/store-contract/neo4j.neo4j.test.ts checks the plan).
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
       OR NOT (coalesce(settings[0].requireToken, false) OR search.keyType IN secureTypes OR coalesce(search.whereType IN secureTypes, false)) AS allowed
OPTIONAL MATCH (start:IdNode {customer: search.customer, schema: search.schema, keyType: search.keyType, keyId: search.keyId})
USING INDEX start:IdNode(customer, schema, keyType, keyId)
WHERE allowed
  AND (search.whereType IS NULL OR EXISTS { (start)-[:LINKED]->(:Id {type: search.whereType, value: search.whereValue}) })
WITH search, policy, hiddenTypes, unlinkedTypes, COLLECT {
  MATCH path = (start)-[:LINKED*0..3]-(reached)
  WHERE all(vertex IN nodes(path) WHERE NOT (vertex:Id AND vertex.type IN unlinkedTypes))
  RETURN DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
} AS vertices
WITH search, policy, hiddenTypes, unlinkedTypes, vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH search, policy, hiddenTypes, unlinkedTypes, vertices, nodes, size(nodes) AS visited
WITH search, policy, hiddenTypes, unlinkedTypes, nodes, visited, size(vertices) - visited + COUNT {
  UNWIND CASE WHEN size(unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN unlinkedTypes
  RETURN DISTINCT id
} AS idsRead
WITH search, policy, visited, idsRead, COLLECT {
  UNWIND nodes AS target
  MATCH (target)-[:LINKED]->(id:Id)
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
    AND NOT (search.exclude AND target.schema = search.schema AND target.keyType = search.keyType AND target.keyId = search.keyId)
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
