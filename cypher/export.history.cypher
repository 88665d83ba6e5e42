// params: customer
// Every history entry of the customer by the key it was written under (a rekeying under the key it left), keys in
// the nodes' order (export.nodes.cypher), and the entries whose key an erase took (keyId null) after the other keys
// of their schema and type; each key's entries oldest first, by their position in the change feed.
MATCH (entry:HistoryEntry {customer: $customer})
WITH entry
ORDER BY entry.schema, entry.keyType, entry.keyId IS NULL, entry.keyId, entry.seq
RETURN entry.schema AS schema, entry.keyType AS keyType, entry.keyId AS keyId, entry.entry AS entry, entry.time.epochMillis AS atMillis
