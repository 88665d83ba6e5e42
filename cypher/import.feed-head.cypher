// params: customer, last
// The last step of an import, in the transaction that removes its mark: moves the customer's change counter past
// its entries' positions, and past those retention deleted meanwhile (the customer's (:Sequence {name: 'pruned'}):
// an export's entries keep their times, and some may be past it). `last`: for an import that finishes, the position
// of its last entry (import.history.cypher numbers them after the counter's value when the import began, and
// nothing else moves it meanwhile: import.begin.cypher), so that every entry is in the feed at once; for one
// abandoned, once its entries are deleted, the highest position they took (import.abandoning.cypher; null for none),
// so that none is given again, as on SQLite, where positions are rows' keys. No cursor the feed gives is past its head.
MATCH (sequence:Sequence {customer: $customer, name: 'change'})
OPTIONAL MATCH (pruned:Sequence {customer: $customer, name: 'pruned'})
SET sequence.last = reduce(top = sequence.last, n IN [$last, pruned.last] | CASE WHEN n > top THEN n ELSE top END)
