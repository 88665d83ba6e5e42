// params: afterMillis, limit
// Upgrade 3 of the ledger (neo4j-migrations.ts), in batches, until a batch finds fewer than `limit`: earlier
// versions stored an idempotency key without the ID its impression was counted against, which an erase finds keys
// by (impression.erase-keys.cypher). That ID is known nowhere else, so such a key gets type and value '' (no ID
// type is empty): an erase of its customer deletes it. Batches go in the order of `createdAt`
// (impression_key_time), each from the last one's on.
MATCH (key:ImpressionKey)
WHERE key.createdAt >= datetime({epochMillis: $afterMillis}) AND key.type IS NULL
WITH key
ORDER BY key.createdAt
LIMIT $limit
SET key.type = '', key.value = ''
RETURN count(key) AS adopted, max(key.createdAt).epochMillis AS lastMillis
