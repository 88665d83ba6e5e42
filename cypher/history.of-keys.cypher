// params: customer, keys
// The entries under any of `keys` (each {schema, keyType, keyId}), as the key or as a rekeying's new key: what an
// erase of a person reads to find every value their nodes' history names.
UNWIND $keys AS key
CALL (key) {
  MATCH (entry:HistoryEntry {customer: $customer, schema: key.schema, keyType: key.keyType, keyId: key.keyId})
  RETURN entry
  UNION
  MATCH (entry:HistoryEntry {customer: $customer, schema: key.schema, keyType: key.keyType, newKeyId: key.keyId})
  RETURN entry
}
RETURN DISTINCT entry.entry AS entry
