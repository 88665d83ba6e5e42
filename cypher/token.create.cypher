// params: tokenId, customer, kind, label, tokenHash, createdAt, write
// Stores a token: its hash only, never the secret. `lastWrite` names the store call (see token.last-write.cypher).
CREATE (:Token {tokenId: $tokenId, customer: $customer, kind: $kind, label: $label, tokenHash: $tokenHash, createdAt: $createdAt,
               lastWrite: $write})
