// params: customer, nodes, write
// A _bulk batch's consecutive creates in one statement (createNodes in src/store/neo4j/neo4j-nodes.ts): each of
// `nodes` ({line, schema, keyType, keyId, ids}, its keys distinct) made as node.create.cypher makes one, but for
// the history entry, which the batch appends with its others. Answers each line: `taken` when a node has its key
// already, `made` when its node was made (not when its key is taken or its schema does not exist). So the caller
// sends it with the guards and the history append, in one round trip, and rolls the transaction back when a line is
// refused. A key taken after the read here, by a transaction that commits meanwhile, fails the statement on the
// idnode_key_unique constraint, naming no line.
//
// One statement instead of one per line: 100 creates of 5 IDs on a local Neo4j 5.26 took 145–204 µs a line
// against 686–1,043 µs (docs/performance.md, "On Neo4j"). The hint keeps one seek of the key's unique index per
// line: unhinted, the planner scanned the (customer, schema) index for every line, so a bulk load slowed as the
// graph grew.
// Labels as node.create.cypher sets them (`schema:`, `type:`, `SecureId`), for Neo4j Browser.
WITH COLLECT { MATCH (secureType:IdType {customer: $customer, secure: true}) RETURN secureType.name } AS secureTypes
UNWIND $nodes AS new
OPTIONAL MATCH (taken:IdNode {customer: $customer, schema: new.schema, keyType: new.keyType, keyId: new.keyId})
USING INDEX taken:IdNode(customer, schema, keyType, keyId)
OPTIONAL MATCH (schemaVertex:Schema {customer: $customer, schemaId: new.schema})
WITH secureTypes, new, taken IS NOT NULL AS taken, schemaVertex
CALL (secureTypes, new, taken, schemaVertex) {
  WITH *
  WHERE NOT taken AND schemaVertex IS NOT NULL
  CREATE (node:IdNode:$('schema:' + new.schema) {customer: $customer, schema: new.schema, keyType: new.keyType, keyId: new.keyId, lastWrite: $write})
  FOREACH (held IN new.ids |
    MERGE (id:Id {customer: $customer, type: held.type, value: held.id})
      ON CREATE SET id:$(['type:' + held.type] + CASE WHEN held.type IN secureTypes THEN ['SecureId'] ELSE [] END)
    CREATE (node)-[:LINKED]->(id)
  )
  CREATE (node)-[:IN_SCHEMA]->(schemaVertex)
}
RETURN new.line AS line, taken, NOT taken AND schemaVertex IS NOT NULL AS made
