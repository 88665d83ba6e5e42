// params:
// A token is found by the hash of its secret, so the hash is unique (and indexed by this constraint).
CREATE CONSTRAINT token_hash_unique IF NOT EXISTS
FOR (token:Token) REQUIRE token.tokenHash IS UNIQUE
