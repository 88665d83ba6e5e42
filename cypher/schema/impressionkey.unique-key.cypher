// params:
// An idempotency key is used once per delivery of a customer (docs/deliveries.md); its index finds the key's answer.
CREATE CONSTRAINT impression_key_unique IF NOT EXISTS
FOR (key:ImpressionKey) REQUIRE (key.customer, key.deliveryId, key.key) IS UNIQUE
