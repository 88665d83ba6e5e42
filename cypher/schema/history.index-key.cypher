// params:
// Finds the history entries under a key (history.page.cypher).
CREATE INDEX history_key IF NOT EXISTS
FOR (entry:HistoryEntry) ON (entry.customer, entry.schema, entry.keyType, entry.keyId)
