// params: before, limit, write
// Deletes up to `limit` of the oldest idempotency keys stored before the instant `before` (ISO 8601), through
// the impression_key_time index. Keys are kept at least 24 hours (src/domain/retention.ts). Each key is locked
// first (the SET writes a value no other call writes): when another prune (another service's) deleted it while
// this one waited, Neo4j reads its properties as null, and it is neither deleted again nor counted.
MATCH (key:ImpressionKey)
WHERE key.createdAt < datetime($before)
WITH key
ORDER BY key.createdAt
LIMIT $limit
SET key.prunedBy = $write
WITH key WHERE key.createdAt IS NOT NULL
DELETE key
RETURN count(*) AS deleted
