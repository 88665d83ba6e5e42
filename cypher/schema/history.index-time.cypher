// params:
// Finds the oldest history entries, which retention deletes (history.prune.cypher).
CREATE INDEX history_time IF NOT EXISTS
FOR (entry:HistoryEntry) ON (entry.time)
