// params:
// One Settings vertex per customer (settings.put.cypher MERGEs it).
CREATE CONSTRAINT settings_customer_unique IF NOT EXISTS
FOR (settings:Settings) REQUIRE settings.customer IS UNIQUE
