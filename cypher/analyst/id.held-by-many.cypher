// params: customer, minHolders
// Analyst: IDs held by suspiciously many nodes (a shared test device, a placeholder e-mail, a NAT address), which
// merge otherwise unrelated people into one component. Not used by the service.
// Set the parameters first, e.g.  :params {customer: 'acme', minHolders: 50}
MATCH (id:Id {customer: $customer})
WITH id, COUNT { (id)<-[:LINKED]-(:IdNode) } AS holders
WHERE holders >= $minHolders
RETURN id.type AS type, id.value AS id, holders
ORDER BY holders DESC, type, id
LIMIT 50
