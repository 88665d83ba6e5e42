// params: tokenHash
// The active token with this hash, if any.
MATCH (token:Token {tokenHash: $tokenHash})
WHERE token.revokedAt IS NULL
RETURN token.tokenId AS tokenId, token.customer AS customerId, token.kind AS kind, token.label AS label,
       token.createdAt AS createdAt, token.tokenHash AS tokenHash
