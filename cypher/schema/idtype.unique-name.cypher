// params:
// One IdType vertex per type name of a customer: it carries the single secure flag the type has across all the
// customer's schemas.
CREATE CONSTRAINT idtype_name_unique IF NOT EXISTS
FOR (idType:IdType) REQUIRE (idType.customer, idType.name) IS UNIQUE
