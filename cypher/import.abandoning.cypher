// params: customer
// The first step of abandoning an import: marks it and each of its lanes abandoned, which takes their locks, and so
// waits for the batches and finish under way (their first statement, import.touch.cypher, holds their lane's lock
// until they commit). Every batch and finish after it finds its lane abandoned and is refused: nothing is written
// behind the deleting that follows (import.abandon-*.cypher). `marked`: whether the customer is marked at all; when
// it is not (its import finished meanwhile, or there was none), the abandon deletes nothing. `through`: the highest
// feed position an entry of the customer holds once no batch can write any more (after the locks: the count is
// eager), which import.feed-head.cypher moves the change counter past.
OPTIONAL MATCH (mark:Import {customer: $customer})
SET mark.abandoned = true
WITH mark
OPTIONAL MATCH (lane:ImportLane {customer: $customer})
WHERE mark IS NOT NULL
SET lane.abandoned = true
WITH count(mark) > 0 AS marked
RETURN marked,
       COLLECT {
         MATCH (entry:HistoryEntry {customer: $customer})
         USING INDEX entry:HistoryEntry(customer, seq)
         WHERE entry.seq IS NOT NULL
         RETURN entry.seq AS seq
         ORDER BY seq DESC
         LIMIT 1
       }[0] AS through
