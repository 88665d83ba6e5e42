// params:
// Finds the rekeyings onto a key, which are in its history too (history.page.cypher).
CREATE INDEX history_new_key IF NOT EXISTS
FOR (entry:HistoryEntry) ON (entry.customer, entry.schema, entry.keyType, entry.newKeyId)
