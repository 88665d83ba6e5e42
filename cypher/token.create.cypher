// params: tokenId, customer, kind, label, tokenHash, createdAt
// Stores a token: its hash only, never the secret.
CREATE (:Token {tokenId: $tokenId, customer: $customer, kind: $kind, label: $label, tokenHash: $tokenHash, createdAt: $createdAt})
