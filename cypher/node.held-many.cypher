// params: customer, rows
// node.held-among.cypher for many nodes, after node.lock-many, in a statement of its own: for each of `rows`
// ({line, node, schema, keyType, keyId, ids}), whether the locked node still has that key (no row when it was
// moved or deleted meanwhile), which of its `ids` it holds, and whether it has a separation (separation.check).
UNWIND $rows AS row
MATCH (node:IdNode {customer: $customer, schema: row.schema, keyType: row.keyType, keyId: row.keyId})
WHERE elementId(node) = row.node
RETURN row.line AS line, [(node)-[:LINKED]->(id:Id) WHERE any(candidate IN row.ids WHERE candidate.type = id.type AND candidate.id = id.value) | {type: id.type, id: id.value}] AS held,
       EXISTS { (node)-[:SEPARATED]-(:IdNode) } AS separated
