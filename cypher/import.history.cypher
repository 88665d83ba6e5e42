// params: customer, entries, write
// Appends an import batch's history entries, in the order given, as history.append.cypher appends a write's, but
// each with the time the export gave it (`atMillis`) rather than Neo4j's clock now: an imported entry keeps its
// time. Each takes the next position of the customer's change feed (`seq`, from the customer's change counter), in
// import order, and the writes that follow the import take the positions after them. `position`, which orders the
// entries of one time in GET …/node/_history, is the feed position too: it orders imported entries as the export
// listed them. `keyId` is null for an erased key, and `mentions` are only the values not erased, each a MENTIONS
// relationship of the entry to itself (what an erase finds it by). `redacts` is not kept: an erase entry's positions
// were those of the source's feed. The last statement of the batch's transaction, as history.append.cypher is of
// every write's: the counter's lock is held from here to the commit.
MERGE (sequence:Sequence {customer: $customer, name: 'change'})
  ON CREATE SET sequence.last = 0
SET sequence.last = sequence.last + size($entries)
WITH sequence.last - size($entries) AS before
UNWIND range(0, size($entries) - 1) AS i
WITH before + i + 1 AS seq, $entries[i] AS imported
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
