// params: customer, write
// The first statement of an import batch's transaction: records when the import last wrote (`touchedAt`, by Neo4j's
// clock; import.unfinished.cypher) and which store call (`lastWrite`: a batch whose commit reply was lost finds it
// there, import.mark.cypher, rather than writing its records twice). `marked` is 0 when the customer is not marked
// as importing: the batch is then refused and rolled back.
OPTIONAL MATCH (mark:Import {customer: $customer})
SET mark.touchedAt = datetime.realtime(), mark.lastWrite = $write
RETURN count(mark) AS marked
