// params: customer
// Abandoning an import, after its nodes (import.abandon-nodes.cypher): deletes the customer's Id vertices, which no
// node holds any more, in transactions of 10,000, found by a seek of the (customer, type) index.
MATCH (id:Id {customer: $customer})
USING INDEX id:Id(customer, type)
WHERE id.type IS NOT NULL
CALL (id) {
  DETACH DELETE id
} IN TRANSACTIONS OF 10000 ROWS
