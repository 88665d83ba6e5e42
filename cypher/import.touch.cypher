// params: customer, write
// The first statement of an import batch's transaction, and of its finish: records when the import last wrote
// (`touchedAt`, by Neo4j's clock) and which store call (`lastWrite`: a batch whose commit reply was lost finds it
// there, import.mark.cypher, rather than writing its records twice). Setting them takes the mark's lock first, which
// an abandon takes too (import.abandoning.cypher), so `marked` is read after any abandon that began before: it is
// false when the customer is not marked as importing, or its import is being abandoned, and the batch or finish is
// then refused and rolled back.
OPTIONAL MATCH (mark:Import {customer: $customer})
SET mark.touchedAt = datetime.realtime(), mark.lastWrite = $write
RETURN mark IS NOT NULL AND mark.abandoned IS NULL AS marked
