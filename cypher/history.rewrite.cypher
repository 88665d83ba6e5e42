// params: rewrites
// An erase's rewrite of entries: each gets its new JSON and the keys it is still found under (null: none), and
// loses the MENTIONS of the values it no longer holds (`mentions`: those it still holds), the erased ones.
UNWIND $rewrites AS rewrite
MATCH (entry:HistoryEntry)
WHERE elementId(entry) = rewrite.element
SET entry.entry = rewrite.entry, entry.keyId = rewrite.keyId, entry.newKeyId = rewrite.newKeyId
WITH entry, rewrite
MATCH (entry)-[mention:MENTIONS]->(entry)
WHERE NOT mention.value IN rewrite.mentions
DELETE mention
