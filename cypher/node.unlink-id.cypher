// params: node, type, value
// Makes the node stop holding one ID (nothing when it does not hold it) and deletes the Id vertex when no node
// holds it any more. Deleting the LINKED relationship locks the Id vertex first, so a concurrent link to it either
// commits before (and is seen by the EXISTS check) or waits for this transaction.
MATCH (node:IdNode)-[held:LINKED]->(id:Id {type: $type, value: $value})
WHERE elementId(node) = $node
DELETE held
WITH id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
DELETE id
