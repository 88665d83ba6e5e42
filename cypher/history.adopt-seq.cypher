// params: afterMillis, limit
// Upgrade 6 of the ledger (neo4j-migrations.ts), in batches, until a batch finds fewer than `limit`: entries written
// before the change feed have no position (`seq`). Each gets the next of its customer's counter (:Sequence {name:
// 'change'}), in the order of `time` and then `position`, which is the order their writes committed in. Batches go
// in the order of `time` (history_time), each from the last one's time on; an entry that has its position is left
// alone.
MATCH (entry:HistoryEntry)
WHERE entry.time >= datetime({epochMillis: $afterMillis}) AND entry.seq IS NULL
WITH entry
ORDER BY entry.time, entry.position
LIMIT $limit
WITH entry.customer AS customer, collect(entry) AS entries, max(entry.time).epochMillis AS lastMillis
MERGE (counter:Sequence {customer: customer, name: 'change'})
  ON CREATE SET counter.last = 0
WITH counter, counter.last AS before, entries, lastMillis
SET counter.last = before + size(entries)
WITH before, entries, lastMillis
UNWIND range(0, size(entries) - 1) AS i
WITH entries[i] AS entry, before + i + 1 AS seq, lastMillis
SET entry.seq = seq
RETURN count(entry) AS adopted, max(lastMillis) AS lastMillis
