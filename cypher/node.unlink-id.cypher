// params: node, type, value
// Makes the node stop holding one ID (nothing when it does not hold it) and deletes the Id vertex when no node
// holds it any more. Deleting the LINKED relationship does not always lock the Id vertex exclusively: a dense one
// (held by many nodes) gets only a shared lock, as does a concurrent link to it (Operations Manual, "Concurrent
// data access", locks for dense nodes). So an Id vertex that looks orphaned is locked (the SET reads what it
// writes) and checked again: a link committed meanwhile is then seen and the vertex kept, instead of the delete
// failing at commit on a vertex that still has a relationship. A link that comes later waits for this
// transaction and then finds the vertex deleted (EntityNotFound; the store runs that write again).
MATCH (node:IdNode)-[held:LINKED]->(id:Id {type: $type, value: $value})
WHERE elementId(node) = $node
DELETE held
WITH id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
SET id.revision = coalesce(id.revision, 0) + 1
WITH id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
DELETE id
