// params: customer, entries, first, write
// Appends an import batch's history entries, in the order given, as history.append.cypher appends a write's, but
// each with the time the export gave it (`atMillis`) rather than Neo4j's clock now: an imported entry keeps its
// time. Each takes the next position of the customer's change feed (`seq`) from `first` on, in import order: the
// import numbers its entries itself, after the counter's value when it began (import.begin.cypher), and moves the
// counter past them when it finishes (import.feed-head.cypher), so batches need not wait for each other's commit to
// number theirs. Until then a feed page reads none of them (history.changes.cypher reads up to the counter), and
// the writes that follow the import take the positions after them. `position`, which orders the entries of one time
// in GET …/node/_history, is the feed position too: it orders imported entries as the export listed them. `keyId` is
// null for an erased key, and `mentions` are only the values not erased, each a MENTIONS relationship of the entry
// to itself (what an erase finds it by). `redacts` is not kept: an erase entry's positions were those of the
// source's feed.
UNWIND range(0, size($entries) - 1) AS i
WITH $first + i AS seq, $entries[i] AS imported
CREATE (entry:HistoryEntry {
  customer: $customer,
  schema: imported.schema,
  keyType: imported.keyType,
  keyId: imported.keyId,
  newKeyId: imported.newKeyId,
  time: datetime({epochMillis: imported.atMillis}),
  position: seq,
  entry: imported.entry,
  write: $write,
  seq: seq
})
FOREACH (mention IN imported.mentions | CREATE (entry)-[:MENTIONS {customer: $customer, value: mention}]->(entry))
