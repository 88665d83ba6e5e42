// params: customer, schemaId, keptTypes
// A type the replacement drops that nodes of this schema still hold (the replacement is then refused).
MATCH (:Schema {customer: $customer, schemaId: $schemaId})-[:DECLARES]->(dropped:IdType)
WHERE NOT dropped.name IN $keptTypes
  AND EXISTS {
    MATCH (:IdNode {customer: $customer, schema: $schemaId})-[:LINKED]->(:Id {customer: $customer, type: dropped.name})
  }
RETURN dropped.name AS type
LIMIT 1
