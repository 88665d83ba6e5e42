// params: customer, rows, skipSeparated
// node.link-ids.cypher for many nodes of the customer, each locked by node.lock-many earlier in the transaction and
// found again by its key: each of `rows` ({line, schema, keyType, keyId, ids, maxIds}) links its `ids`, which its
// node does not hold, unless the node would then hold more than `maxIds` (null: no limit). Answers each line with
// whether it fitted (false: nothing linked, node_id_limit_reached); linking nothing always fits, as in
// node.link-ids's caller. A line whose node is gone answers nothing.
// With skipSeparated, a node kept apart from another (SEPARATED) links nothing and answers `linked` false: its
// caller sends this statement with the locks and reads, before it has asked separation.check, and links such a
// node once it has.
// Each Id vertex made here gets the labels node.create.cypher gives one (`type:`, `SecureId`), for Neo4j Browser;
// the customer's secure types are read once for all rows.
WITH COLLECT { MATCH (secureType:IdType {customer: $customer, secure: true}) RETURN secureType.name } AS secureTypes
UNWIND $rows AS row
MATCH (node:IdNode {customer: $customer, schema: row.schema, keyType: row.keyType, keyId: row.keyId})
WITH row, node, secureTypes,
  size(row.ids) = 0 OR row.maxIds IS NULL OR COUNT { (node)-[:LINKED]->() } + size(row.ids) <= row.maxIds AS fits,
  NOT ($skipSeparated AND EXISTS { (node)-[:SEPARATED]-(:IdNode) }) AS linked
FOREACH (held IN CASE WHEN fits AND linked THEN row.ids ELSE [] END |
  MERGE (id:Id {customer: node.customer, type: held.type, value: held.id})
    ON CREATE SET id:$(['type:' + held.type] + CASE WHEN held.type IN secureTypes THEN ['SecureId'] ELSE [] END)
  MERGE (node)-[:LINKED]->(id)
)
RETURN row.line AS line, fits, linked
