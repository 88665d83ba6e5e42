// params: customer, schemaId
// One schema with its declared types (position gives the declaration order).
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
RETURN schema.schemaId AS schemaId,
       [(schema)-[declares:DECLARES]->(idType:IdType) | {type: idType.name, secure: idType.secure, position: declares.position}] AS idTypes
