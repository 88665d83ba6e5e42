// params: customer
// Analyst: the customer's largest components (people with the most linked nodes), by node count, with one node
// of each to start from. Not used by the service.
// Set the parameters first, e.g.  :params {customer: 'acme'}
// Plain Cypher has no connected-components algorithm, so this runs one pruning breadth-first search per node that
// shares an ID with another node, capped at 10,001 nodes: the cost grows with the square of the component sizes.
// A component of more than 10,000 nodes shows as 10001 and may be listed more than once. For a whole large graph
// use the Graph Data Science library's weakly connected components (gds.wcc) instead, which needs the GDS plugin.
MATCH (node:IdNode {customer: $customer})
WHERE EXISTS { (node)-[:LINKED]->(:Id)<-[:LINKED]-(other:IdNode) WHERE other <> node }
CALL (node) {
  MATCH (node)-[:LINKED*0..20001]-(member:IdNode)
  WITH DISTINCT member
  LIMIT 10001
  RETURN count(member) AS nodes, min(elementId(member)) AS representative
}
WITH DISTINCT representative, nodes
ORDER BY nodes DESC, representative
LIMIT 20
MATCH (sample:IdNode)
WHERE elementId(sample) = representative
RETURN nodes, sample.schema AS schema, sample.keyType AS keyType, sample.keyId AS keyId
