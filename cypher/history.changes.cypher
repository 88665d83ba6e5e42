// params: customer, after, limit, maxChars
// A page of the customer's change feed (docs/changes-and-export.md): up to `limit` entries after position `after`,
// oldest first, through the history_seq index, and no more than `maxChars` characters of their stored JSON but for
// the first entry (CHANGE_PAGE_CHARS in src/domain/ports/changes.ts): the page ends before the entry that would pass
// them. Only the vertices are collected, and each entry's text is read for its size, one at a time. The counter is
// read first, and only entries up to it are read: the counter's value is committed, and every position below it
// belongs to a transaction that committed before it (history.append.cypher), so the page never holds a position
// while a smaller one is still to commit. `head`: the counter; `prunedThrough`: the newest position retention
// deleted (history.prune.cypher), read after the entries: a prune that deleted entries the read would have found
// committed that position with them, so a page that misses entries to retention says so (cursor_expired); read
// before, it could miss the prune's position and not its deleting. `cut`: the page ended at `maxChars`, and an
// entry follows it.
OPTIONAL MATCH (counter:Sequence {customer: $customer, name: 'change'})
WITH coalesce(counter.last, 0) AS head
CALL (head) {
  MATCH (entry:HistoryEntry {customer: $customer})
  WHERE entry.seq > $after AND entry.seq <= head
  WITH entry
  ORDER BY entry.seq
  LIMIT $limit
  WITH collect(entry) AS entries
  // [entries taken, their characters], the characters -1 once an entry would pass maxChars: none is taken after it.
  WITH entries, reduce(taken = [0, 0], e IN entries |
    CASE
      WHEN taken[1] < 0 THEN taken
      WHEN taken[0] > 0 AND taken[1] + size(e.entry) > $maxChars THEN [taken[0], -1]
      ELSE [taken[0] + 1, taken[1] + size(e.entry)]
    END)[0] AS count
  RETURN [entry IN entries[0..count] | {seq: entry.seq, entry: entry.entry, atMillis: entry.time.epochMillis, redacts: entry.redacts}] AS changes,
         count < size(entries) AS cut
}
OPTIONAL MATCH (pruned:Sequence {customer: $customer, name: 'pruned'})
RETURN head, coalesce(pruned.last, 0) AS prunedThrough, changes, cut
