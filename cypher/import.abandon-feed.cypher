// params: customer, through
// The last step of abandoning an import, in the transaction that removes the mark (import.unmark.cypher), when the
// entries the import wrote are deleted: moves the customer's change counter past the positions they took (`through`,
// read by import.abandoning.cypher) and past those retention deleted while the import ran (the customer's
// (:Sequence {name: 'pruned'})). A position is never given to two changes, and no cursor the feed gives is past its
// head, as on SQLite, where positions are rows' keys.
MATCH (sequence:Sequence {customer: $customer, name: 'change'})
OPTIONAL MATCH (pruned:Sequence {customer: $customer, name: 'pruned'})
SET sequence.last = reduce(top = sequence.last, n IN [$through, pruned.last] | CASE WHEN n > top THEN n ELSE top END)
