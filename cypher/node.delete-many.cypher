// params: nodes
// node.delete.cypher for many locked nodes (a _bulk batch's consecutive deletes): deletes them with their links,
// and the Id vertices none of the nodes left holds, each locked and checked again first, as node.delete does.
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
SET id.revision = coalesce(id.revision, 0) + 1
WITH id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
DELETE id
