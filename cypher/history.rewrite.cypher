// params: rewrites
// An erase's rewrite of entries: each gets its new JSON, the keys it is still found under (null: none) and the
// values it still holds.
UNWIND $rewrites AS rewrite
MATCH (entry:HistoryEntry)
WHERE elementId(entry) = rewrite.element
SET entry.entry = rewrite.entry, entry.keyId = rewrite.keyId, entry.newKeyId = rewrite.newKeyId, entry.mentions = rewrite.mentions
