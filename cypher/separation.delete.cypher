// params: a, b
// Lifts the ban on two locked nodes: how many there were (0 or 1).
MATCH (a:IdNode)-[ban:SEPARATED]-(b:IdNode)
WHERE elementId(a) = $a AND elementId(b) = $b
DELETE ban
RETURN count(*) AS lifted
