// params: customer, last
// The last step of an import that finishes: moves the customer's change counter to `last`, the position of the
// import's last entry (import.history.cypher numbers them after the counter's value when the import began, and
// nothing else moves it meanwhile: import.begin.cypher). Every entry of the import is then in the feed at once, in
// the transaction that removes the mark.
MATCH (sequence:Sequence {customer: $customer, name: 'change'})
SET sequence.last = CASE WHEN sequence.last < $last THEN $last ELSE sequence.last END
