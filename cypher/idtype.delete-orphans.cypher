// params: customer
// Deletes the customer's IdType vertices that no schema declares any more, so that a type dropped everywhere
// keeps no stale secure flag.
MATCH (idType:IdType {customer: $customer})
WHERE NOT EXISTS { (idType)<-[:DECLARES]-(:Schema) }
DELETE idType
