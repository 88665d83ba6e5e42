// params: customer
// Every schema of a customer with its declared types and their options (as schema.get.cypher).
MATCH (schema:Schema {customer: $customer})
RETURN schema.schemaId AS schemaId,
       [(schema)-[declares:DECLARES]->(idType:IdType) | {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders, position: declares.position}] AS idTypes
