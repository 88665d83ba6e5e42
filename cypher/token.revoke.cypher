// params: customer, tokenId, now, write
// Revokes an active token of the customer; `revoked` is 0 when there is none. The first SET takes the token's
// write lock before anything is read (direct dependency), so of two concurrent revokes only one counts. Only a revoke that counts marks the token with `lastWrite`.
MATCH (token:Token {customer: $customer, tokenId: $tokenId})
SET token.revision = coalesce(token.revision, 0) + 1
WITH token
WHERE token.revokedAt IS NULL
SET token.revokedAt = $now, token.lastWrite = $write
RETURN count(token) AS revoked
