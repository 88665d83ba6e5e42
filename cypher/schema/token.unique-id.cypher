// params:
// Token ids are unique across customers.
CREATE CONSTRAINT token_id_unique IF NOT EXISTS
FOR (token:Token) REQUIRE token.tokenId IS UNIQUE
