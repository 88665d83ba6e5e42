// params: node, ids
// Makes the node hold `ids`, creating the Id vertices that do not exist yet (in the node's customer). The caller
// sorts `ids`, so that transactions linking overlapping IDs lock their Id vertices in the same order.
MATCH (node:IdNode)
WHERE elementId(node) = $node
UNWIND $ids AS held
MERGE (id:Id {customer: node.customer, type: held.type, value: held.id})
MERGE (node)-[:LINKED]->(id)
