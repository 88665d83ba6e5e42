// params: customer, schema, keyType, keyId, offset, limit
// The history of a node key, newest first: the entries under it as the key, and the rekeyings onto it as the new
// key (each through its own index: history_key, history_new_key). `total` counts them all; `page` is the slice
// asked for, each entry's JSON with its time in milliseconds since the epoch.
CALL () {
  MATCH (entry:HistoryEntry {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
  RETURN entry
  UNION
  MATCH (entry:HistoryEntry {customer: $customer, schema: $schema, keyType: $keyType, newKeyId: $keyId})
  RETURN entry
}
WITH entry
ORDER BY entry.time DESC, entry.position DESC
WITH collect(entry) AS entries
RETURN size(entries) AS total, [entry IN entries[$offset..$offset + $limit] | {entry: entry.entry, atMillis: entry.time.epochMillis}] AS page
