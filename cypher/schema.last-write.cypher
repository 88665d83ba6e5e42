// params: customer, schemaId
// Which store call wrote the schema last (schema.lock sets `lastWrite`), and whether that call is the one that
// created it (`createdBy`); no row when the schema does not exist. A write whose commit reply was lost asks this
// before running again.
MATCH (schema:Schema {customer: $customer, schemaId: $schemaId})
RETURN schema.lastWrite AS lastWrite, schema.createdBy = schema.lastWrite AS created
