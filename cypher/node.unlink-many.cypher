// params: rows
// node.unlink-id.cypher for many locked nodes (a _bulk batch's consecutive upserts and ID removals): each of
// `rows` ({node, type, id}) makes its node stop holding that ID (nothing when it does not hold it). Then the Id
// vertices no node holds any more are deleted, each locked and checked again first, as node.unlink-id does.
UNWIND $rows AS row
MATCH (node:IdNode)-[held:LINKED]->(id:Id {type: row.type, value: row.id})
WHERE elementId(node) = row.node
DELETE held
WITH DISTINCT id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
SET id.revision = coalesce(id.revision, 0) + 1
WITH id
WHERE NOT EXISTS { (id)<-[:LINKED]-(:IdNode) }
DELETE id
