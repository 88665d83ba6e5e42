// params: nodes
// Deletes an erase's nodes (locked by erase.lock) with their links, and the Id vertices no node holds any more.
// The Id vertices are locked too, so no link to one of them commits meanwhile (node.delete.cypher, which runs
// without those locks, checks again instead).
UNWIND $nodes AS nodeId
MATCH (node:IdNode)
WHERE elementId(node) = nodeId
OPTIONAL MATCH (node)-[:LINKED]->(id:Id)
WITH node, collect(id) AS held
DETACH DELETE node
WITH held
UNWIND held AS id
WITH DISTINCT id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
DELETE id
