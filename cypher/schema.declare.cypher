// params: customer, schemaId, idTypes
// Replaces the schema's declarations by the given list: DECLARES carries the position (declaration order), the
// IdType carries the options, one value per customer (checked against other schemas before this runs): secure,
// links, and maxHolders (null, which removes the property, when there is no limit).
// A declaration the list keeps is kept (its position updated), never deleted and created again: Neo4j reads
// committed records as they are, without a snapshot, so a read walking the schema's relationships while this
// commits could otherwise miss a type both versions declare (a write refused with key_type_not_in_schema, or a
// secure type missing from a search's hidden types).
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
OPTIONAL MATCH (schema)-[previous:DECLARES]->(dropped:IdType)
  WHERE NOT dropped.name IN [declared IN $idTypes | declared.type]
DELETE previous
WITH DISTINCT schema
UNWIND range(0, size($idTypes) - 1) AS position
WITH schema, position, $idTypes[position] AS declared
MATCH (idType:IdType {customer: $customer, name: declared.type})
SET idType.secure = declared.secure, idType.links = declared.links, idType.maxHolders = declared.maxHolders
MERGE (schema)-[declares:DECLARES]->(idType)
SET declares.position = position
