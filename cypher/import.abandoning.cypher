// params: customer
// The first step of abandoning an import: marks it and each of its lanes abandoned, which takes their locks, and so
// waits for the batches and finish under way (their first statement, import.touch.cypher, holds their lane's lock
// until they commit). Every batch and finish after it finds its lane abandoned and is refused: nothing is written
// behind the deleting that follows (import.abandon-*.cypher). `marked`: whether the customer is marked at all; when
// it is not (its import finished meanwhile, or there was none), the abandon deletes nothing.
OPTIONAL MATCH (mark:Import {customer: $customer})
SET mark.abandoned = true
WITH mark
OPTIONAL MATCH (lane:ImportLane {customer: $customer})
WHERE mark IS NOT NULL
SET lane.abandoned = true
RETURN count(mark) > 0 AS marked
