// params: nodes, write
// Takes the write lock of each node of an erase and of every Id vertex it holds, until commit. A write that would
// add a node to the component (linking one of these IDs) or an ID to one of these nodes then waits for the erase,
// and finds the vertex gone (EntityNotFound: the store runs it again, against what the erase left), so no write
// lands half before and half after it. The lock is taken by writing `lastWrite`, for the reason node.lock.cypher
// gives. Answers each node's key and the IDs it holds.
UNWIND $nodes AS nodeId
MATCH (node:IdNode)
WHERE elementId(node) = nodeId
SET node.lastWrite = $write
WITH node
OPTIONAL MATCH (node)-[:LINKED]->(id:Id)
SET id.lastWrite = $write
WITH node, collect({type: id.type, id: id.value}) AS held
RETURN elementId(node) AS element, node.schema AS schema, node.keyType AS keyType, node.keyId AS keyId, held
