// params: customer, rows
// node.ids.cypher for a _bulk batch's consecutive deletes, after node.lock-many, in a statement of its own: for
// each of `rows` ({line, node, schema, keyType, keyId}), the IDs the locked node holds, when it still has that key
// (no row when it was moved or deleted meanwhile).
UNWIND $rows AS row
MATCH (node:IdNode {customer: $customer, schema: row.schema, keyType: row.keyType, keyId: row.keyId})
WHERE elementId(node) = row.node
RETURN row.line AS line, [(node)-[:LINKED]->(id:Id) | {type: id.type, id: id.value}] AS ids
