// API tokens on SQLite, sharing the store's connection (src/store/sqlite/sqlite-store.ts): hashes only, never
// secrets; a revoked token keeps its row with the time of its revocation.
import type Database from 'better-sqlite3';
import type { TokenRecord } from '../../domain/model';
import type { StoredToken } from '../../domain/ports/tokens';
import type { KeptToken } from '../../domain/ports/inventory';

interface TokenRow {
  token_id: string;
  customer_id: string;
  kind: 'bearer' | 'mapi';
  label: string | null;
  token_hash: string;
  created_at: string;
}

const toTokenRecord = (row: TokenRow): TokenRecord => ({
  tokenId: row.token_id,
  customerId: row.customer_id,
  kind: row.kind,
  label: row.label,
  createdAt: row.created_at,
});

export class SqliteTokens {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      insert: db.prepare<StoredToken>(
        'INSERT INTO tokens (token_id, customer_id, kind, label, token_hash, created_at) VALUES (@tokenId, @customerId, @kind, @label, @tokenHash, @createdAt)',
      ),
      list: db.prepare<[customerId: string], TokenRow>(
        'SELECT token_id, customer_id, kind, label, token_hash, created_at FROM tokens WHERE customer_id = ? AND revoked_at IS NULL ORDER BY created_at, token_id',
      ),
      revoke: db.prepare<[revokedAt: string, customerId: string, tokenId: string]>(
        'UPDATE tokens SET revoked_at = ? WHERE customer_id = ? AND token_id = ? AND revoked_at IS NULL',
      ),
      all: db.prepare<[], TokenRow & { revoked_at: string | null }>(
        'SELECT token_id, customer_id, kind, label, token_hash, created_at, revoked_at FROM tokens ORDER BY customer_id, token_id',
      ),
      insertKept: db.prepare<KeptToken>(
        'INSERT INTO tokens (token_id, customer_id, kind, label, token_hash, created_at, revoked_at) ' +
          'VALUES (@tokenId, @customerId, @kind, @label, @tokenHash, @createdAt, @revokedAt)',
      ),
      findActive: db.prepare<[tokenHash: string], TokenRow>(
        'SELECT token_id, customer_id, kind, label, token_hash, created_at FROM tokens WHERE token_hash = ? AND revoked_at IS NULL',
      ),
    };
  }

  /** Call inside a write transaction. */
  create(token: StoredToken): void {
    this.s.insert.run(token);
  }

  list(customerId: string): TokenRecord[] {
    return this.s.list.all(customerId).map(toTokenRecord);
  }

  /** Call inside a write transaction. */
  revoke(customerId: string, tokenId: string): boolean {
    return this.s.revoke.run(new Date().toISOString(), customerId, tokenId).changes > 0;
  }

  /** Every token, revoked ones included. */
  all(): KeptToken[] {
    return this.s.all.all().map((row) => ({ ...toTokenRecord(row), tokenHash: row.token_hash, revokedAt: row.revoked_at }));
  }

  /** Call inside a write transaction. */
  putKept(tokens: KeptToken[]): void {
    for (const token of tokens) this.s.insertKept.run(token);
  }

  findActive(tokenHash: string): StoredToken | undefined {
    const row = this.s.findActive.get(tokenHash);
    return row ? { ...toTokenRecord(row), tokenHash: row.token_hash } : undefined;
  }
}
