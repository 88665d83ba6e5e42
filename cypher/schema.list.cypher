// params: customer
// Every schema of a customer with its declared types.
MATCH (schema:Schema {customer: $customer})
RETURN schema.schemaId AS schemaId,
       [(schema)-[declares:DECLARES]->(idType:IdType) | {type: idType.name, secure: idType.secure, position: declares.position}] AS idTypes
