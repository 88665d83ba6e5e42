// params: customer, schemaId, idTypes
// Replaces the schema's declarations by the given list: DECLARES carries the position (declaration order), the
// IdType carries the options, one value per customer (checked against other schemas before this runs): secure,
// links, and maxHolders (null, which removes the property, when there is no limit).
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
OPTIONAL MATCH (schema)-[previous:DECLARES]->(:IdType)
DELETE previous
WITH DISTINCT schema
UNWIND range(0, size($idTypes) - 1) AS position
WITH schema, position, $idTypes[position] AS declared
MATCH (idType:IdType {customer: $customer, name: declared.type})
SET idType.secure = declared.secure, idType.links = declared.links, idType.maxHolders = declared.maxHolders
CREATE (schema)-[:DECLARES {position: position}]->(idType)
