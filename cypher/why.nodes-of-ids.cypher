// params: customer, ids
// `_why`'s exact search (src/domain/why-chain.ts), one level from IDs: the holders of each ID, by the element ids
// why.ids-of-nodes answered (one element-id seek per ID, then its LINKED relationships). The customer check
// keeps out an element id reused by another customer's vertex since; an ID deleted since answers nothing.
// One row, each node once with the places in $ids of the IDs it holds, as why.ids-of-nodes.
UNWIND range(0, size($ids) - 1) AS at
MATCH (i:Id)
WHERE elementId(i) = $ids[at] AND i.customer = $customer
MATCH (i)<-[:LINKED]-(n:IdNode)
WITH n, collect(at) AS held
RETURN collect(elementId(n)) AS nodes, collect(held) AS held
