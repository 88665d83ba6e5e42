// params: customer, schemaId
// What every search and node write of a customer is checked against, in one round trip: the names of the types
// declared secure and of those declared `links: false` (by any of its schemas), its settings and its blocklist
// (each a vertex, absent until first put: the caller fills in the defaults). A node write also gives the schema it
// writes to, read here as schema.get.cypher reads it, so that its checks wait for one statement; a null schemaId
// (searches, the admin endpoints) matches no schema. `hasSchema`: whether the customer has any schema, which a
// bulk request is admitted on with the policy.
RETURN COLLECT {
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
         MATCH (blocklist:Blocklist {customer: $customer})
         RETURN blocklist.digest
       } AS blocklistDigest,
       COLLECT {
         MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
         RETURN {
           schemaId: schema.schemaId,
           idTypes: [(schema)-[declares:DECLARES]->(idType:IdType) | {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders, position: declares.position}]
         }
       } AS schema,
       EXISTS { (:Schema {customer: $customer}) } AS hasSchema
