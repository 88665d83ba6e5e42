// params: afterMillis, limit
// Upgrade 2 of the ledger (neo4j-migrations.ts), in batches, until a batch finds fewer than `limit`: earlier
// versions kept an entry's values in a list, `mentions` (each the JSON of [type, value]), which Neo4j cannot index.
// Each such entry gets a MENTIONS of itself per value, which an erase finds it by, and loses the list, so that its
// values are kept once beside its JSON. Batches go in the order of `time` (history_time), each from the last one's
// time on. MERGE, not CREATE: a run that takes an entry another run adopted meanwhile (it read the list before it
// waited for that run's lock) finds the MENTIONS there rather than making them twice.
MATCH (entry:HistoryEntry)
WHERE entry.time >= datetime({epochMillis: $afterMillis}) AND entry.mentions IS NOT NULL
WITH entry
ORDER BY entry.time
LIMIT $limit
FOREACH (mention IN entry.mentions | MERGE (entry)-[:MENTIONS {customer: entry.customer, value: mention}]->(entry))
REMOVE entry.mentions
RETURN count(entry) AS adopted, max(entry.time).epochMillis AS lastMillis
