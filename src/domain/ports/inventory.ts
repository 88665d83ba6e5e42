// The port of what a whole store holds, for moving it to another store (`npm run migrate`, src/migrate.ts): its
// customers and its tokens as stored (hashes only, revoked ones included), which no export carries.
import type { StoredToken } from './tokens';

/** A token as the store keeps it. */
export interface KeptToken extends StoredToken {
  /** When it was revoked; null while it is active. */
  revokedAt: string | null;
}

export interface InventoryStore {
  /** Every customer the store holds anything of (a schema, node, history entry, delivery, setting, blocklist or token), in code-point order. */
  customerIds(): Promise<string[]>;
  /** Every token, revoked ones included, by customer and then token id. */
  keptTokens(): Promise<KeptToken[]>;
  /** Stores tokens as another store kept them: the same ids, hashes, labels, kinds and times. */
  putKeptTokens(tokens: KeptToken[]): Promise<void>;
}
