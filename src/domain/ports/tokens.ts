// The port of the API tokens, stored only as hashes.
import type { TokenRecord } from '../model';

export interface StoredToken extends TokenRecord {
  tokenHash: string;
}

/**
 * How a token lookup may be answered. `recent`: the lookup is for a call whose own store statement confirms the token
 * again (PersonRequest.mapiToken), so an answer the store found for it recently will do; a store may answer it from
 * what it keeps, and forgets a token a lookup no longer finds. Without it, the token is read as it is now.
 */
export interface TokenLookup {
  recent?: boolean;
}

export interface TokenStore {
  createToken(token: StoredToken): Promise<void>;
  listTokens(customerId: string): Promise<TokenRecord[]>;
  /** false when no active token of that id exists for the customer. */
  revokeToken(customerId: string, tokenId: string): Promise<boolean>;
  findActiveToken(tokenHash: string, lookup?: TokenLookup): Promise<StoredToken | undefined>;
}
