// params: customer, entries, write
// Appends the history entries of one write transaction (docs/history-and-erasure.md), in the order given (`position`). The
// entry is kept as the JSON the API shows, but for its time: `time` is Neo4j's clock when the entry is written,
// after the write took its locks, so entries of one node are ordered as its writes were applied. `keyId` and
// `newKeyId` (a rekeying's new key) are what GET …/node/_history finds it by. `mentions` are the values it holds,
// each as the JSON of [type, value]: each becomes a MENTIONS relationship of the entry to itself, which is what an
// erase finds it by (history.mentioning.cypher). `write` is the store call's write id: a delete whose commit reply
// was lost finds its entry by it (history.written-by.cypher), since it leaves no node to carry it.
UNWIND $entries AS appended
CREATE (entry:HistoryEntry {
  customer: $customer,
  schema: appended.schema,
  keyType: appended.keyType,
  keyId: appended.keyId,
  newKeyId: appended.newKeyId,
  time: datetime.realtime(),
  position: appended.position,
  entry: appended.entry,
  write: $write
})
FOREACH (mention IN appended.mentions | CREATE (entry)-[:MENTIONS {customer: $customer, value: mention}]->(entry))
