// params: node
// Deletes a node with its links, and the Id vertices only it held. An Id vertex that looks orphaned is locked and
// checked again before it is deleted, as in node.unlink-id.cypher (a dense Id vertex is not locked exclusively by
// the deletion of its relationships, so a concurrent link may have committed meanwhile).
MATCH (node:IdNode)
WHERE elementId(node) = $node
OPTIONAL MATCH (node)-[:LINKED]->(id:Id)
WITH node, collect(id) AS held
DETACH DELETE node
WITH held
UNWIND held AS id
WITH id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
SET id.revision = coalesce(id.revision, 0) + 1
WITH id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
DELETE id
