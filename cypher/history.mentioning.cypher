// params: customer, mentions, write
// The customer's entries that hold any of `mentions` (each the JSON of [type, value]): what an erase rewrites,
// found by their MENTIONS relationships (history_mention), locked for the rest of the erase's transaction
// (`rewrittenBy`, in element id order), and then read: each entry's JSON is read after its lock is taken, so it is
// what is committed now. An erase of another value may be rewriting the same entries, locking none of the nodes
// this one locks (each value held by someone else now): reading an entry before its lock and writing it back would
// name that erase's value again. An entry retention deleted meanwhile is left out.
MATCH (entry:HistoryEntry)-[mention:MENTIONS]->(entry)
WHERE mention.customer = $customer AND mention.value IN $mentions
WITH DISTINCT entry
ORDER BY elementId(entry)
SET entry.rewrittenBy = $write
WITH entry
WHERE entry.entry IS NOT NULL
RETURN elementId(entry) AS element, entry.entry AS entry, entry.seq AS seq
