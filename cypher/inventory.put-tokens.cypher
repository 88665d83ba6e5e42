// params: tokens, write
// Stores tokens as another store kept them (`npm run migrate`): the same ids, hashes, labels, kinds and times, and
// the revocation time of a revoked one (token.create.cypher makes a new one).
UNWIND $tokens AS kept
CREATE (:Token {tokenId: kept.tokenId, customer: kept.customerId, kind: kept.kind, label: kept.label, tokenHash: kept.tokenHash,
                createdAt: kept.createdAt, revokedAt: kept.revokedAt, lastWrite: $write})
