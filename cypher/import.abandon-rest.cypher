// params: customer
// The last step of abandoning an import, in the transaction that removes the mark after it (import.unmark.cypher):
// deletes the customer's deliveries, schemas with their declarations and guards, and ID types, which are few. The
// id counters stay (an id once given is never given twice); the catalogue version is raised, as every delivery
// write raises it (src/store/neo4j/neo4j-deliveries.ts). Settings, blocklist and tokens stay as they were.
OPTIONAL MATCH (delivery:Delivery {customer: $customer})
USING INDEX delivery:Delivery(customer, deliveryId)
WHERE delivery.deliveryId IS NOT NULL
DETACH DELETE delivery
WITH count(delivery) AS deliveries
OPTIONAL MATCH (guard:SchemaGuard {customer: $customer})
USING INDEX guard:SchemaGuard(customer, schemaId, stripe)
WHERE guard.schemaId IS NOT NULL AND guard.stripe IS NOT NULL
DELETE guard
WITH count(guard) AS guards
OPTIONAL MATCH (schema:Schema {customer: $customer})
DETACH DELETE schema
WITH count(schema) AS schemas
OPTIONAL MATCH (idType:IdType {customer: $customer})
DETACH DELETE idType
WITH count(idType) AS idTypes
MERGE (catalogue:Sequence {customer: $customer, name: 'catalogue'})
  ON CREATE SET catalogue.last = 0
SET catalogue.last = catalogue.last + 1
