// params:
// Finds the idempotency keys of the impressions recorded against an ID, which an erase deletes
// (impression.erase-keys.cypher); those of an earlier version, which named no ID, under type ''
// (impression.adopt-keys.cypher).
CREATE INDEX impression_key_id IF NOT EXISTS
FOR (key:ImpressionKey) ON (key.customer, key.type, key.value)
