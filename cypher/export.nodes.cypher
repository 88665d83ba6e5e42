// params: customer
// Every node of the customer with the IDs it holds (its key among them), in code-point order of schema, key type
// and key id: Neo4j compares the strings it reads from the store by code point (a parameter compares by UTF-16
// code unit, so the order is never built from a comparison with one). The driver pulls the rows as the export
// writes them; the sort holds the customer's nodes, not their IDs, which are read after it, row by row.
MATCH (node:IdNode {customer: $customer})
WITH node
ORDER BY node.schema, node.keyType, node.keyId
RETURN node.schema AS schema, node.keyType AS keyType, node.keyId AS keyId,
       [(node)-[:LINKED]->(id:Id) | [id.type, id.value]] AS ids
