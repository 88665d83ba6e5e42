// params: customer, schema, keyType, keyId, whereType, whereValue, exclude, authenticated, maxNodes, maxIds, havingType, answerBytes
// Step ALL from a keyed node, in one statement with what the search is checked against: the customer's policy,
// read as customer.policy.cypher reads it (with the key's schema), which the caller checks the start against
// before it uses the answer; then the keyed node (search.start-by-key.cypher: and, when a where condition is also
// given, only if it holds that ID); then what search.traverse-all.cypher does from it, which says why the traversal
// has its shape and what the answer holds. One statement instead of three saves two Bolt round trips.
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
WITH COLLECT {
         MATCH (idType:IdType {customer: $customer})
         WHERE idType.secure AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
         RETURN idType.name
       } AS secureTypes,
       COLLECT {
         MATCH (idType:IdType {customer: $customer})
         WHERE idType.links = false AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
         RETURN idType.name
       } AS unlinkedTypes,
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
WITH {secureTypes: secureTypes, unlinkedTypes: unlinkedTypes, settings: settings, blocklist: blocklist, schema: schema} AS policy,
     unlinkedTypes,
     CASE WHEN $authenticated THEN [] ELSE secureTypes END AS hiddenTypes,
     $authenticated
       OR NOT (coalesce(settings[0].requireToken, false) OR $keyType IN secureTypes OR coalesce($whereType IN secureTypes, false)) AS allowed
OPTIONAL MATCH (start:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
WHERE allowed
  AND ($whereType IS NULL OR EXISTS { (start)-[:LINKED]->(:Id {type: $whereType, value: $whereValue}) })
WITH policy, hiddenTypes, unlinkedTypes, COLLECT {
  MATCH path = (start)-[:LINKED*0..20000001]-(reached)
  WHERE all(vertex IN nodes(path) WHERE NOT (vertex:Id AND vertex.type IN unlinkedTypes))
  RETURN DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
} AS vertices
WITH policy, hiddenTypes, unlinkedTypes, vertices, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH policy, hiddenTypes, unlinkedTypes, vertices, nodes, size(nodes) AS visited
WITH policy, hiddenTypes, unlinkedTypes, nodes, visited, size(vertices) - visited + COUNT {
  UNWIND CASE WHEN size(unlinkedTypes) = 0 THEN [] ELSE nodes END AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  WHERE id.type IN unlinkedTypes
  RETURN DISTINCT id
} AS idsRead
WITH policy, visited, idsRead, COLLECT {
  UNWIND nodes AS target
  MATCH (target)-[:LINKED]->(id:Id)
  WHERE visited <= $maxNodes AND idsRead <= $maxIds
    AND NOT ($exclude AND target.schema = $schema AND target.keyType = $keyType AND target.keyId = $keyId)
    AND ($havingType IS NULL OR id.type = $havingType)
    AND NOT id.type IN hiddenTypes
  RETURN DISTINCT {type: id.type, id: id.value}
} AS ids
WITH policy, visited, idsRead, ids, reduce(chars = 0, id IN ids | chars + size(id.type) + size(id.id)) AS idChars
RETURN policy, visited, idsRead, size(ids) AS idCount, idChars,
  CASE WHEN $answerBytes IS NULL OR 32 + 20 * size(ids) + idChars <= $answerBytes THEN ids ELSE [] END AS ids
