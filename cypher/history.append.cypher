// params: customer, entries, write
// Appends the history entries of one write transaction (docs/history-and-erasure.md), in the order given (`position`). The
// entry is kept as the JSON the API shows, but for its time: `time` is Neo4j's clock when the entry is written,
// after the write took its locks, so entries of one node are ordered as its writes were applied. `keyId` and
// `newKeyId` (a rekeying's new key) are what GET …/node/_history finds it by. `mentions` are the values it holds,
// each as the JSON of [type, value]: each becomes a MENTIONS relationship of the entry to itself, which is what an
// erase finds it by (history.mentioning.cypher). `write` is the store call's write id: a delete whose commit reply
// was lost finds its entry by it (history.written-by.cypher), since it leaves no node to carry it.
//
// `seq` is the entry's position in the customer's change feed (docs/changes-and-export.md), taken from the customer's
// counter (:Sequence {name: 'change'}). This is the last statement of every write transaction that appends history,
// so the counter's write lock is held from here to the commit: the customer's writes take positions in the order
// they commit, and a transaction that holds position n commits before any other can take n + 1. A reader that
// sees the counter at n therefore sees every entry up to n (history.changes.cypher). `redacts`: an erase entry's
// positions of the entries it redacted.
//
// `importing`: whether the customer is marked as importing (import.begin.cypher), read with the counter's lock held;
// then nothing is appended, and the caller rolls the write back (import_in_progress). import.begin takes the same
// lock before it checks that the customer is empty, so a write that appends history either commits first, and the
// import finds it, or finds the import's mark: another process's import is refused to a node write from the moment
// it begins, not only once this process has read the marks.
MERGE (sequence:Sequence {customer: $customer, name: 'change'})
  ON CREATE SET sequence.last = 0
SET sequence.last = sequence.last + size($entries)
WITH sequence.last - size($entries) AS before, EXISTS { MATCH (:Import {customer: $customer}) } AS importing
CALL (before, importing) {
  WITH * WHERE NOT importing
  UNWIND range(0, size($entries) - 1) AS i
  WITH before + i + 1 AS seq, $entries[i] AS appended
  CREATE (entry:HistoryEntry {
    customer: $customer,
    schema: appended.schema,
    keyType: appended.keyType,
    keyId: appended.keyId,
    newKeyId: appended.newKeyId,
    time: datetime.realtime(),
    position: appended.position,
    entry: appended.entry,
    write: $write,
    seq: seq,
    redacts: appended.redacts
  })
  FOREACH (mention IN appended.mentions | CREATE (entry)-[:MENTIONS {customer: $customer, value: mention}]->(entry))
}
RETURN importing
