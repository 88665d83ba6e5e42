// params: customer, rows
// node.ids.cypher for a _bulk batch's consecutive deletes: sent with node.lock-many, in a statement of its own, so
// that it runs once node.lock-many is done and reads what is committed now that the locks are held. For each of
// `rows` ({line, schema, keyType, keyId}), the node that has that key now (no row when none has) and the IDs it
// holds. The caller compares each node with the one node.lock-many locked for that line: another one, or no row,
// means the locked node was moved to another key (a rekey that committed while node.lock-many waited) or deleted
// meanwhile.
UNWIND $rows AS row
MATCH (node:IdNode {customer: $customer, schema: row.schema, keyType: row.keyType, keyId: row.keyId})
RETURN row.line AS line, elementId(node) AS node, [(node)-[:LINKED]->(id:Id) | {type: id.type, id: id.value}] AS ids
