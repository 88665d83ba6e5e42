// params: customer, nodes, unlinkedTypes
// `_why`'s exact search (src/domain/why-chain.ts), one level from nodes: the IDs of `links: true` types each node
// holds, by the element ids an earlier statement answered (one element-id seek per node, then its LINKED
// relationships). It runs only when more shortest chains tie than why.shortest reads. The customer check keeps out
// an element id reused by another customer's vertex since; a node deleted since answers nothing.
// One row, each ID once with the places in $nodes of its holders: a row a link, and every node's element id sent
// back, cost the driver several times more to decode around a hub of thousands of links.
UNWIND range(0, size($nodes) - 1) AS at
MATCH (n:IdNode)
WHERE elementId(n) = $nodes[at] AND n.customer = $customer
MATCH (n)-[:LINKED]->(i:Id)
WHERE NOT i.type IN $unlinkedTypes
WITH i, collect(at) AS holders
RETURN collect(elementId(i)) AS ids, collect(holders) AS holders
