// params: node, ids
// Which of `ids` the node (locked by node.lock) holds.
MATCH (node:IdNode)-[:LINKED]->(id:Id)
WHERE elementId(node) = $node
  AND any(candidate IN $ids WHERE candidate.type = id.type AND candidate.id = id.value)
RETURN id.type AS type, id.value AS id
