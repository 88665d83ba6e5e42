// params: beforeMillis, limit
// Retention (HISTORY_RETENTION_DAYS): deletes up to `limit` of the oldest entries written before the instant
// `beforeMillis` (milliseconds since the epoch), through the history_time index.
MATCH (entry:HistoryEntry)
WHERE entry.time < datetime({epochMillis: $beforeMillis})
WITH entry
ORDER BY entry.time
LIMIT $limit
DELETE entry
RETURN count(*) AS deleted
