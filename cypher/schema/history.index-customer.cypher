// params:
// Finds a customer's history entries, which an erase reads (history.mentioning.cypher).
CREATE INDEX history_customer IF NOT EXISTS
FOR (entry:HistoryEntry) ON (entry.customer)
