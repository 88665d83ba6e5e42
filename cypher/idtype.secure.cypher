// params: customer
// The names of the customer's types declared secure (by any of its schemas).
MATCH (idType:IdType {customer: $customer})
WHERE idType.secure AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
RETURN idType.name AS type
