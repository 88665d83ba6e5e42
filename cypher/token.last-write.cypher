// params: customer, tokenId
// Which store call wrote the token last (token.create, or token.revoke when it revoked); no row when the customer
// has no such token. A write whose commit reply was lost asks this before running again.
MATCH (token:Token {customer: $customer, tokenId: $tokenId})
RETURN token.lastWrite AS lastWrite
