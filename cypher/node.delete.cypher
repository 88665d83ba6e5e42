// params: node
// Deletes a node with its links, and the Id vertices only it held.
MATCH (node:IdNode)
WHERE elementId(node) = $node
OPTIONAL MATCH (node)-[:LINKED]->(id:Id)
WITH node, collect(id) AS held
DETACH DELETE node
WITH held
UNWIND held AS id
WITH id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
DELETE id
