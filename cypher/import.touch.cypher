// params: customer, lane, write
// The first statement of an import batch's transaction, and of its finish: records on one of the import's lanes
// (import.begin.cypher makes them) when the import last wrote (`touchedAt`, by Neo4j's clock) and which store call
// (`lastWrite`: a batch whose commit reply was lost finds it there, import.mark.cypher, rather than writing its
// records twice). A batch holds its lane's lock from here to its commit, and batches on different lanes run beside
// each other; an abandon takes every lane's lock (import.abandoning.cypher), so `marked` is read after any abandon
// that began before: it is false when the customer is not marked as importing, or its import is being abandoned,
// and the batch or finish is then refused and rolled back.
OPTIONAL MATCH (lane:ImportLane {customer: $customer, lane: $lane})
SET lane.touchedAt = datetime.realtime(), lane.lastWrite = $write
RETURN lane IS NOT NULL AND lane.abandoned IS NULL AS marked
