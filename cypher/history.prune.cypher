// params: beforeMillis, limit, write
// Retention (HISTORY_RETENTION_DAYS): deletes up to `limit` of the oldest entries written before the instant
// `beforeMillis` (milliseconds since the epoch), through the history_time index. Each entry is locked first (the SET
// writes a value no other call writes): when another prune (another service's) deleted it while this one waited,
// Neo4j reads its properties as null, and it is neither deleted again nor counted. Its MENTIONS go with it. Each
// customer's (:Sequence {name: 'pruned'}) keeps the newest feed position deleted: a cursor before it has missed
// entries (docs/changes-and-export.md). Not an importing customer's entries: they are not in the feed yet (they keep
// the times of their export, often old), and go whole if the import is abandoned.
MATCH (entry:HistoryEntry)
WHERE entry.time < datetime({epochMillis: $beforeMillis})
  AND NOT EXISTS { MATCH (:Import {customer: entry.customer}) }
WITH entry
ORDER BY entry.time
LIMIT $limit
SET entry.prunedBy = $write
WITH entry WHERE entry.entry IS NOT NULL
WITH entry, entry.customer AS customer, entry.seq AS seq
DETACH DELETE entry
WITH customer, max(seq) AS through, count(*) AS deleted
CALL (customer, through) {
  WITH customer, through WHERE through IS NOT NULL
  MERGE (pruned:Sequence {customer: customer, name: 'pruned'})
    ON CREATE SET pruned.last = 0
  SET pruned.last = CASE WHEN through > pruned.last THEN through ELSE pruned.last END
}
RETURN sum(deleted) AS deleted
