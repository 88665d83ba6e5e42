// params: customer, schema, keyType, keyId, ids, write, history
// Creates a node of an existing schema holding `ids` (the key among them; no duplicates), creating the Id
// vertices that do not exist yet. No row comes back when the schema does not exist. A taken key fails on the
// idnode_key_unique constraint (node_exists), and the whole transaction, Id vertices included, is undone.
//
// IN_SCHEMA is what a foreign key is in SQLite: a schema cannot be deleted under a node being created. Creating
// a relationship locks both its vertices until commit (a dense vertex, such as a schema with many nodes, only in
// shared mode, which still "prevents the deletion of nodes": Operations Manual, "Concurrent data access", locks
// for dense nodes). schema.lock-for-delete takes the schema's write lock before it checks for nodes, so it waits
// for this transaction and then sees its node; a create that comes after the delete finds the schema vertex
// deleted (EntityNotFound; the store runs it again, and then finds no schema). A create that links while a delete
// holds the schema's lock but has not deleted it yet waits at its commit, and Neo4j fails one of the two with
// DeadlockDetected, which the driver retries (seen on Neo4j 5.26; test/neo4j/driver-errors.neo4j.test.ts pins the
// EntityNotFound case).
// The relationship is created last, so the schema's lock is held for as short a time as possible.
//
// `history`: the create's history entry, as history.append.cypher stores one (the same properties and MENTIONS),
// or [] when the caller appends it later with the other entries of its transaction (a _bulk batch). A single create
// writes it here, which saves the round trip of a statement of its own: on a local Neo4j 5.26, over HTTP, a create
// with history made 353 requests a second with the extra statement, against 431 before history. It takes the entry's
// feed position as history.append.cypher does, last, so the customer's counter is locked until the commit, and
// answers `importing` as it does (the caller then rolls back); without an entry, history.append.cypher answers it.
//
// Labels for Neo4j Browser's style (docs/neo4j-browser.md): the node gets `schema:` and its schema id, each Id vertex
// made here `type:` and its type name, and `SecureId` when the customer's IdType of it is secure (read in the same
// statement: secureTypes, a few IdType vertices of the customer). The labels are expressions, `$(...)`, never Cypher
// built from values. A MERGE may not hold a subquery, so secureTypes is read before it.
MATCH (schemaVertex:Schema {customer: $customer, schemaId: $schema})
CREATE (node:IdNode:$('schema:' + $schema) {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId, lastWrite: $write})
WITH schemaVertex, node, COLLECT { MATCH (secureType:IdType {customer: $customer, secure: true}) RETURN secureType.name } AS secureTypes
UNWIND $ids AS held
MERGE (id:Id {customer: $customer, type: held.type, value: held.id})
  ON CREATE SET id:$(['type:' + held.type] + CASE WHEN held.type IN secureTypes THEN ['SecureId'] ELSE [] END)
CREATE (node)-[:LINKED]->(id)
WITH schemaVertex, node, count(id) AS linked
CREATE (node)-[:IN_SCHEMA]->(schemaVertex)
WITH node, linked
CALL () {
  UNWIND $history AS appended
  MERGE (sequence:Sequence {customer: $customer, name: 'change'})
    ON CREATE SET sequence.last = 0
  SET sequence.last = sequence.last + 1
  CREATE (entry:HistoryEntry {
    customer: $customer,
    schema: appended.schema,
    keyType: appended.keyType,
    keyId: appended.keyId,
    newKeyId: appended.newKeyId,
    time: datetime.realtime(),
    position: appended.position,
    entry: appended.entry,
    write: $write,
    seq: sequence.last
  })
  FOREACH (mention IN appended.mentions | CREATE (entry)-[:MENTIONS {customer: $customer, value: mention}]->(entry))
}
RETURN elementId(node) AS node, linked,
       CASE WHEN size($history) > 0 THEN EXISTS { MATCH (:Import {customer: $customer}) } ELSE false END AS importing
