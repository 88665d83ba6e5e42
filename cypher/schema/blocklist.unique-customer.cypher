// params:
// One Blocklist vertex per customer (blocklist.put.cypher MERGEs it).
CREATE CONSTRAINT blocklist_customer_unique IF NOT EXISTS
FOR (blocklist:Blocklist) REQUIRE blocklist.customer IS UNIQUE
