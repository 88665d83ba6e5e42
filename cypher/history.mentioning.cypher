// params: customer, mentions
// The customer's entries that hold any of `mentions` (each the JSON of [type, value]): what an erase rewrites,
// found by their MENTIONS relationships (history_mention).
MATCH (entry:HistoryEntry)-[mention:MENTIONS]->(entry)
WHERE mention.customer = $customer AND mention.value IN $mentions
RETURN DISTINCT elementId(entry) AS element, entry.entry AS entry
