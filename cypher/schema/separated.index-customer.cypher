// params:
// Lists a customer's separations (separation.list.cypher) without reading every node of the customer.
CREATE INDEX separated_customer IF NOT EXISTS
FOR ()-[ban:SEPARATED]-() ON (ban.customer)
