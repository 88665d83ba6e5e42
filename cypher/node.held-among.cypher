// params: node, customer, schema, keyType, keyId, ids
// After node.lock, in a statement of its own, so that it reads what is committed now that the lock is held:
// whether the locked node (`node`) still has this key, and which of `ids` it holds. No row when the node was moved
// to another key (a rekey that committed while node.lock waited) or deleted meanwhile, or another node has the
// key now.
MATCH (node:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
WHERE elementId(node) = $node
RETURN [(node)-[:LINKED]->(id:Id) WHERE any(candidate IN $ids WHERE candidate.type = id.type AND candidate.id = id.value) | {type: id.type, id: id.value}] AS held
