// params: customer, schema, keyType, keyId, write
// Whether the store call `write` appended an entry under this key (history_key): how a delete whose commit reply
// was lost knows that its commit went through, since the node it deleted cannot carry the mark. A row when it did.
MATCH (entry:HistoryEntry {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId})
WHERE entry.write = $write
RETURN elementId(entry) AS entry
LIMIT 1
