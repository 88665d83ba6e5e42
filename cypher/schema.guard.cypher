// params: customer, schemaId, stripes, write
// Takes the write locks of the schema's guards numbered `stripes`, creating those that do not exist yet, and then
// reads what the schema declares; no row when the schema does not exist. Neo4j has no shared locks to give in
// Cypher, so the guards stand in for one: a node write that may add IDs takes one guard of its schema (a random
// stripe, so writes to one schema rarely wait on each other) and then checks the types it was checked against,
// with all their options;
// a schema replacement or deletion takes all of them first. A replacement that drops a type therefore waits for
// the writes in flight and then sees their IDs (schema_in_use), or goes first, and the writes that follow read
// the new declarations (schema_changed, and the domain checks them again). Guards come before the schema vertex
// and the nodes in every transaction's lock order.
//
// The lock is taken by writing `lastWrite` (the store call's id), which reads nothing, for the reason
// node.lock.cypher gives. count() ends the locking before the declarations are read, so they are read with the
// guards held.
//
// It also reads what a node write checks of the customer's policy besides the schema: whether a token is required,
// and the digest of the blocklist. A service process that checked the write against a policy it kept between writes
// refuses the write unless these are still what it kept (src/store/neo4j/kept-policies.ts).
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
UNWIND $stripes AS stripe
MERGE (guard:SchemaGuard {customer: $customer, schemaId: $schemaId, stripe: stripe})
SET guard.lastWrite = $write
WITH schema, count(guard) AS locked
RETURN COLLECT {
  MATCH (schema)-[:DECLARES]->(idType:IdType)
  RETURN {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders}
} AS declared,
COLLECT { MATCH (settings:Settings {customer: $customer}) RETURN settings.requireToken } AS requireToken,
COLLECT { MATCH (blocklist:Blocklist {customer: $customer}) RETURN blocklist.digest } AS blocklistDigest
