// params: a, b
// The IDs two (locked) nodes both hold, in type then value order.
MATCH (a:IdNode)
WHERE elementId(a) = $a
MATCH (b:IdNode)
WHERE elementId(b) = $b
OPTIONAL MATCH (a)-[:LINKED]->(id:Id)<-[:LINKED]-(b)
WITH id
ORDER BY id.type, id.value
RETURN [x IN collect(id) | {type: x.type, id: x.value}] AS shared
