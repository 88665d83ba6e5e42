// params: customer
// Every ban of the customer, each once; the caller orders them in code-point order, as SQLite does.
MATCH (a:IdNode)-[:SEPARATED {customer: $customer}]->(b:IdNode)
RETURN {schema: a.schema, keyType: a.keyType, keyId: a.keyId} AS a, {schema: b.schema, keyType: b.keyType, keyId: b.keyId} AS b
