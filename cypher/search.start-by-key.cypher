// params: customer, schema, keyType, keyId, whereType, whereValue
// The start node of a search by key: the keyed node, and, when a where condition is also given (whereType not
// null), only if the node holds that ID. No row: no start node.
MATCH (start:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
WHERE $whereType IS NULL
   OR EXISTS { (start)-[:LINKED]->(:Id {type: $whereType, value: $whereValue}) }
RETURN elementId(start) AS start
