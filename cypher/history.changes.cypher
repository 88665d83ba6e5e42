// params: customer, after, limit
// A page of the customer's change feed (docs/changes-and-export.md): up to `limit` entries after position `after`,
// oldest first, through the history_seq index. The counter is read first, and only entries up to it are read: the
// counter's value is committed, and every position below it belongs to a transaction that committed before it
// (history.append.cypher), so the page never holds a position while a smaller one is still to commit. `head`: the
// counter; `prunedThrough`: the newest position retention deleted (history.prune.cypher).
OPTIONAL MATCH (counter:Sequence {customer: $customer, name: 'change'})
OPTIONAL MATCH (pruned:Sequence {customer: $customer, name: 'pruned'})
WITH coalesce(counter.last, 0) AS head, coalesce(pruned.last, 0) AS prunedThrough
CALL (head) {
  MATCH (entry:HistoryEntry {customer: $customer})
  WHERE entry.seq > $after AND entry.seq <= head
  WITH entry
  ORDER BY entry.seq
  LIMIT $limit
  RETURN collect({seq: entry.seq, entry: entry.entry, atMillis: entry.time.epochMillis, redacts: entry.redacts}) AS changes
}
RETURN head, prunedThrough, changes
