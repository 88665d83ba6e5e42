// params: customer, mentions
// The customer's entries that hold any of `mentions` (each the JSON of [type, value]): what an erase rewrites.
// Neo4j indexes no list elements, so this reads every entry of the customer (history_customer); the README,
// section Erasure, gives what that costs.
MATCH (entry:HistoryEntry {customer: $customer})
WHERE any(mention IN entry.mentions WHERE mention IN $mentions)
RETURN elementId(entry) AS element, entry.entry AS entry
