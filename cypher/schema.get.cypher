// params: customer, schemaId
// One schema with its declared types and their options (position gives the declaration order; a type stored
// before `links` existed has none, which means true).
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
RETURN schema.schemaId AS schemaId,
       [(schema)-[declares:DECLARES]->(idType:IdType) | {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders, position: declares.position}] AS idTypes
