// params: customer, nodes, unlinkedTypes
// `_why`'s exact search (src/domain/why-chain.ts), one level from nodes: the IDs of `links: true` types each node
// holds, by the element ids an earlier statement answered (one element-id seek per node, then its LINKED
// relationships). It runs only when more shortest chains tie than why.shortest reads. The customer check keeps out
// an element id reused by another customer's vertex since; a node deleted since answers no row.
UNWIND $nodes AS node
MATCH (n:IdNode)
WHERE elementId(n) = node AND n.customer = $customer
MATCH (n)-[:LINKED]->(i:Id)
WHERE NOT i.type IN $unlinkedTypes
RETURN node, elementId(i) AS id, i.type AS type
