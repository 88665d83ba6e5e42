// params: customer
// Deletes everything an import wrote into its customer, which was empty before it (import.begin.cypher): nodes with
// their LINKED, IN_SCHEMA and SEPARATED relationships, Id vertices, history entries with their MENTIONS, schemas with
// their declarations, guards and ID types, deliveries, impression counts and idempotency keys. Settings, blocklist,
// tokens and the id counters stay (an id once given is never given twice; the change counter's positions are not
// given again either); the catalogue version is raised, as by any delivery write. Not the mark: the store removes it
// afterwards (import.unmark.cypher), so that an abandon a crash interrupts leaves the customer marked, and the next
// attempt does it again (every step deletes what is left).
//
// An import can hold a million IDs: each kind is deleted in transactions of DELETE_BATCH rows (CALL { } IN
// TRANSACTIONS, so an auto-commit query), found by a seek of an index whose first property is the customer (the
// hints; the existence predicates let a composite index be seeked by its first property). Nodes go first, so that
// the Id vertices and schemas have no relationship left to other vertices when their turn comes.
MATCH (node:IdNode {customer: $customer})
USING INDEX node:IdNode(customer, schema)
WHERE node.schema IS NOT NULL
CALL (node) {
  DETACH DELETE node
} IN TRANSACTIONS OF 5000 ROWS
WITH count(*) AS nodes
OPTIONAL MATCH (id:Id {customer: $customer})
USING INDEX id:Id(customer, type)
WHERE id.type IS NOT NULL
CALL (id) {
  WITH id WHERE id IS NOT NULL
  DETACH DELETE id
} IN TRANSACTIONS OF 10000 ROWS
WITH count(*) AS ids
OPTIONAL MATCH (entry:HistoryEntry {customer: $customer})
USING INDEX entry:HistoryEntry(customer, seq)
WHERE entry.seq IS NOT NULL
CALL (entry) {
  WITH entry WHERE entry IS NOT NULL
  DETACH DELETE entry
} IN TRANSACTIONS OF 10000 ROWS
WITH count(*) AS entries
OPTIONAL MATCH (impressions:ImpressionCount {customer: $customer})
USING INDEX impressions:ImpressionCount(customer, deliveryId)
WHERE impressions.deliveryId IS NOT NULL
CALL (impressions) {
  WITH impressions WHERE impressions IS NOT NULL
  DELETE impressions
} IN TRANSACTIONS OF 10000 ROWS
WITH count(*) AS counted
OPTIONAL MATCH (key:ImpressionKey {customer: $customer})
USING INDEX key:ImpressionKey(customer, type, value)
WHERE key.type IS NOT NULL AND key.value IS NOT NULL
CALL (key) {
  WITH key WHERE key IS NOT NULL
  DELETE key
} IN TRANSACTIONS OF 10000 ROWS
WITH count(*) AS keys
CALL () {
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
} IN TRANSACTIONS
RETURN count(*) AS done
