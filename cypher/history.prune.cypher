// params: beforeMillis, limit, write
// Retention (HISTORY_RETENTION_DAYS): deletes up to `limit` of the oldest entries written before the instant
// `beforeMillis` (milliseconds since the epoch), through the history_time index. Each entry is locked first (the SET
// writes a value no other call writes): when another prune (another service's) deleted it while this one waited,
// Neo4j reads its properties as null, and it is neither deleted again nor counted. Its MENTIONS go with it.
MATCH (entry:HistoryEntry)
WHERE entry.time < datetime({epochMillis: $beforeMillis})
WITH entry
ORDER BY entry.time
LIMIT $limit
SET entry.prunedBy = $write
WITH entry WHERE entry.entry IS NOT NULL
DETACH DELETE entry
RETURN count(*) AS deleted
