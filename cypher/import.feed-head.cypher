// params: customer, last
// The last step of an import that finishes, in the transaction that removes its mark: moves the customer's change
// counter to `last`, the position of its last entry (import.history.cypher numbers them after the counter's value
// when the import began, and nothing else moves it meanwhile: import.begin.cypher), so that every entry is in the
// feed at once. Until then the feed reads nothing past the counter, and retention leaves the customer's entries alone
// (history.prune.cypher): an abandoned import's positions were never shown, and the next import may take them again.
MATCH (sequence:Sequence {customer: $customer, name: 'change'})
SET sequence.last = CASE WHEN $last > sequence.last THEN $last ELSE sequence.last END
