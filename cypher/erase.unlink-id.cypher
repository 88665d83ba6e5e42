// params: nodes, type, value
// An erase of scope id: the nodes (locked by erase.lock, with the Id vertex) stop holding the erased ID, and its
// Id vertex goes once no node holds it. One statement for all the nodes, where node.unlink-id.cypher takes one:
// erase.lock has locked the Id vertex, so no link to it commits meanwhile, and it needs no second look.
UNWIND $nodes AS nodeId
MATCH (node:IdNode)-[held:LINKED]->(id:Id {type: $type, value: $value})
WHERE elementId(node) = nodeId
DELETE held
WITH DISTINCT id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
DELETE id
