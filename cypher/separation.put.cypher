// params: a, b
// Records the ban on two locked nodes, once whatever the direction. The relationship goes with either node
// (DETACH DELETE) and stays through a rekeying, which changes only the node's key.
MATCH (a:IdNode)
WHERE elementId(a) = $a
MATCH (b:IdNode)
WHERE elementId(b) = $b
MERGE (a)-[ban:SEPARATED]-(b)
ON CREATE SET ban.customer = a.customer
RETURN count(ban) AS banned
