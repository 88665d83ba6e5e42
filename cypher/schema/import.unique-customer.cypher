// params:
// One import mark per customer (import.begin.cypher MERGEs it): two imports of one customer cannot both begin.
CREATE CONSTRAINT import_customer_unique IF NOT EXISTS
FOR (mark:Import) REQUIRE mark.customer IS UNIQUE
