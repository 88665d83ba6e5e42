// params: customer, ids
// `_why`'s exact search (src/domain/why-chain.ts), one level from IDs: the holders of each ID, by the element ids
// why.ids-of-nodes answered (one element-id seek per ID, then its LINKED relationships). The customer check
// keeps out an element id reused by another customer's vertex since; an ID deleted since answers no row.
UNWIND $ids AS id
MATCH (i:Id)
WHERE elementId(i) = id AND i.customer = $customer
MATCH (i)<-[:LINKED]-(n:IdNode)
RETURN id, elementId(n) AS node
