// params: customer
// The active (not revoked) tokens of a customer, without their hashes.
MATCH (token:Token {customer: $customer})
WHERE token.revokedAt IS NULL
RETURN token.tokenId AS tokenId, token.customer AS customerId, token.kind AS kind, token.label AS label, token.createdAt AS createdAt
ORDER BY createdAt, tokenId
