// params: customer, schemaId, idTypes
// Replaces the schema's declarations by the given list: DECLARES carries the position (declaration order), the
// IdType carries the secure flag (checked against other schemas before this runs).
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
OPTIONAL MATCH (schema)-[previous:DECLARES]->(:IdType)
DELETE previous
WITH DISTINCT schema
UNWIND range(0, size($idTypes) - 1) AS position
WITH schema, position, $idTypes[position] AS declared
MATCH (idType:IdType {customer: $customer, name: declared.type})
SET idType.secure = declared.secure
CREATE (schema)-[:DECLARES {position: position}]->(idType)
