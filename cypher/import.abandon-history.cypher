// params: customer
// Abandoning an import: deletes the customer's history entries with their MENTIONS relationships, in transactions
// of 5,000, found by a seek of the (customer, seq) index. The change counter stays: the positions the import took
// are not given again, so a consumer of the feed never sees one position name two changes.
MATCH (entry:HistoryEntry {customer: $customer})
USING INDEX entry:HistoryEntry(customer, seq)
WHERE entry.seq IS NOT NULL
CALL (entry) {
  DETACH DELETE entry
} IN TRANSACTIONS OF 5000 ROWS
