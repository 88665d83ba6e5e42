// params:
// Every token as stored, revoked ones included (hashes only): what `npm run migrate` copies to another store.
MATCH (token:Token)
RETURN token.tokenId AS tokenId, token.customer AS customerId, token.kind AS kind, token.label AS label, token.tokenHash AS tokenHash,
       token.createdAt AS createdAt, token.revokedAt AS revokedAt
ORDER BY customerId, tokenId
