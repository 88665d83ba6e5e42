// params:
// Finds the oldest idempotency keys, which retention deletes (impression.prune-keys.cypher).
CREATE INDEX impression_key_time IF NOT EXISTS
FOR (key:ImpressionKey) ON (key.createdAt)
