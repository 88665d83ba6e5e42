// params: customer, type, value
// Analyst: one person's component from one of their IDs, drawn with only the IDs that link its nodes (held by two
// or more of them): why these nodes are one person. Not used by the service.
// Set the parameters first, e.g.  :params {customer: 'acme', type: 'email', value: 'ann@example.com'}
// Same search as component.from-id.cypher (at most 10,000 nodes); IDs held by one node only are left out.
MATCH (start:Id {customer: $customer, type: $type, value: $value})
MATCH (start)-[:LINKED*0..20001]-(node:IdNode)
WITH DISTINCT node
LIMIT 10000
MATCH link = (node)-[:LINKED]->(id:Id)
WHERE COUNT { (id)<-[:LINKED]-(:IdNode) } > 1
RETURN link
