// params: customer, type, value
// Analyst: one person's whole component from one of their IDs: every node linked to it, directly or through
// other nodes, drawn with the IDs each holds (Neo4j Browser shows the graph). Not used by the service.
// Set the parameters first, e.g.  :params {customer: 'acme', type: 'email', value: 'ann@example.com'}
// Same shape as cypher/search.traverse-all.cypher (distinct end nodes, lower bound 0: a pruning breadth-first
// search); it stops after 10,000 nodes, the service's default TRAVERSAL_MAX_NODES.
MATCH (start:Id {customer: $customer, type: $type, value: $value})
MATCH (start)-[:LINKED*0..20001]-(node:IdNode)
WITH DISTINCT node
LIMIT 10000
MATCH holds = (node)-[:LINKED]->(:Id)
RETURN holds
