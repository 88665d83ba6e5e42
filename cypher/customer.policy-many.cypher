// params: asks
// customer.policy.cypher for many asks at once (GatheredReads in src/store/neo4j/gathered-reads.ts): `asks` is a
// list of maps, each with index, customer and schemaId (null: no schema); one row per ask, with its index.
UNWIND $asks AS ask
RETURN ask.index AS index,
       COLLECT {
         MATCH (idType:IdType {customer: ask.customer})
         WHERE idType.secure AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
         RETURN idType.name
       } AS secureTypes,
       COLLECT {
         MATCH (idType:IdType {customer: ask.customer})
         WHERE idType.links = false AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
         RETURN idType.name
       } AS unlinkedTypes,
       COLLECT {
         MATCH (settings:Settings {customer: ask.customer})
         RETURN {requireToken: settings.requireToken, timezone: settings.timezone}
       } AS settings,
       COLLECT {
         MATCH (blocklist:Blocklist {customer: ask.customer})
         RETURN blocklist.rules
       } AS blocklist,
       COLLECT {
         MATCH (blocklist:Blocklist {customer: ask.customer})
         RETURN blocklist.digest
       } AS blocklistDigest,
       COLLECT {
         MATCH (schema:Schema {customer: ask.customer, schemaId: ask.schemaId})
         RETURN {
           schemaId: schema.schemaId,
           idTypes: [(schema)-[declares:DECLARES]->(idType:IdType) | {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders, position: declares.position}]
         }
       } AS schema,
       EXISTS { (:Schema {customer: ask.customer}) } AS hasSchema
