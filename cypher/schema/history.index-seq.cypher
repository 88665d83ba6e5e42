// params:
// Finds a customer's change feed in order (history.changes.cypher).
CREATE INDEX history_seq IF NOT EXISTS
FOR (entry:HistoryEntry) ON (entry.customer, entry.seq)
