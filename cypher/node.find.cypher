// params: customer, schema, keyType, keyId
// Whether a node with this key exists (rekeying onto a key in use is refused before trying).
MATCH (node:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
RETURN elementId(node) AS node
