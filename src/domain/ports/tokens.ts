// The port of the API tokens, stored only as hashes.
import type { TokenRecord } from '../model';

export interface StoredToken extends TokenRecord {
  tokenHash: string;
}

export interface TokenStore {
  createToken(token: StoredToken): Promise<void>;
  listTokens(customerId: string): Promise<TokenRecord[]>;
  /** false when no active token of that id exists for the customer. */
  revokeToken(customerId: string, tokenId: string): Promise<boolean>;
  findActiveToken(tokenHash: string): Promise<StoredToken | undefined>;
}
