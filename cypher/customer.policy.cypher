// params: customer
// What every search and node write of a customer is checked against, in one round trip: the names of the types
// declared secure and of those declared `links: false` (by any of its schemas), its settings and its blocklist
// (each a vertex, absent until first put: the caller fills in the defaults).
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
       } AS blocklist
