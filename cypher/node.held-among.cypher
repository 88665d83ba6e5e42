// params: customer, schema, keyType, keyId, ids
// After node.lock, in a statement of its own, so that it reads what is committed now that the lock is held (sent
// with node.lock, it runs once node.lock is done): the node that has this key now, and which of `ids` it holds.
// The caller compares the node with the one node.lock locked: another one, or no row, means the locked node was
// moved to another key (a rekey that committed while node.lock waited) or deleted meanwhile. `separated`: whether
// the node has a separation, whose check (separation.check) a write linking IDs to it then runs.
MATCH (node:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
RETURN elementId(node) AS node,
       [(node)-[:LINKED]->(id:Id) WHERE any(candidate IN $ids WHERE candidate.type = id.type AND candidate.id = id.value) | {type: id.type, id: id.value}] AS held,
       EXISTS { (node)-[:SEPARATED]-(:IdNode) } AS separated
