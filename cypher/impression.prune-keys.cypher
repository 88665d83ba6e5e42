// params: before, limit
// Deletes up to `limit` of the oldest idempotency keys stored before the instant `before` (ISO 8601), through
// the impression_key_time index. Keys are kept at least 24 hours (src/domain/retention.ts).
MATCH (key:ImpressionKey)
WHERE key.createdAt < datetime($before)
WITH key
ORDER BY key.createdAt
LIMIT $limit
DELETE key
RETURN count(*) AS deleted
