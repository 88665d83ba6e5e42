// params: customer
// Abandoning an import: deletes the customer's history entries with their MENTIONS relationships, in transactions
// of 5,000, found by a seek of the (customer, seq) index. The feed never showed them (it reads up to the change
// counter, which the import had not moved yet), so the counter stays where it was: the next import may number its
// entries from there again.
MATCH (entry:HistoryEntry {customer: $customer})
USING INDEX entry:HistoryEntry(customer, seq)
WHERE entry.seq IS NOT NULL
CALL (entry) {
  DETACH DELETE entry
} IN TRANSACTIONS OF 5000 ROWS
