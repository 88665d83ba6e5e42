// params: tokenHashes
// token.find-active.cypher for many hashes at once (GatheredReads in src/store/neo4j/gathered-reads.ts): one row
// for each hash that names an active token.
UNWIND $tokenHashes AS tokenHash
MATCH (token:Token {tokenHash: tokenHash})
WHERE token.revokedAt IS NULL
RETURN token.tokenId AS tokenId, token.customer AS customerId, token.kind AS kind, token.label AS label,
       token.createdAt AS createdAt, token.tokenHash AS tokenHash
