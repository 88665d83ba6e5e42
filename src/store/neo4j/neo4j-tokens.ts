// API tokens on Neo4j, (:Token) vertices; each function runs in a store transaction (it receives its Query).
import type { TokenRecord } from '../../domain/model';
import type { StoredToken } from '../../domain/ports/tokens';
import type { Query } from './query';

interface TokenRow {
  tokenId: string;
  customerId: string;
  kind: 'bearer' | 'mapi';
  label: string | null;
  createdAt: string;
  tokenHash?: string;
}

const toTokenRecord = (row: TokenRow): TokenRecord => ({
  tokenId: row.tokenId,
  customerId: row.customerId,
  kind: row.kind,
  label: row.label ?? null,
  createdAt: row.createdAt,
});

export async function createToken(q: Query, token: StoredToken, writeId: string): Promise<void> {
  await q('token.create', {
    tokenId: token.tokenId,
    customer: token.customerId,
    kind: token.kind,
    label: token.label,
    tokenHash: token.tokenHash,
    createdAt: token.createdAt,
    write: writeId,
  });
}

export async function listTokens(q: Query, customerId: string): Promise<TokenRecord[]> {
  return (await q<TokenRow>('token.list', { customer: customerId })).map(toTokenRecord);
}

/** Whether the token was active and is revoked now. */
export async function revokeToken(q: Query, customerId: string, tokenId: string, writeId: string): Promise<boolean> {
  const [row] = await q<{ revoked: number }>('token.revoke', { customer: customerId, tokenId, now: new Date().toISOString(), write: writeId });
  return (row?.revoked ?? 0) > 0;
}

/** Whether the token carries the write id (token.last-write.cypher). */
export async function tokenWrittenBy(q: Query, customerId: string, tokenId: string, writeId: string): Promise<boolean> {
  const [row] = await q<{ lastWrite: string | null }>('token.last-write', { customer: customerId, tokenId });
  return row?.lastWrite === writeId;
}

const toStoredToken = (row: TokenRow & { tokenHash: string }): StoredToken => ({ ...toTokenRecord(row), tokenHash: row.tokenHash });

/** Whether a findActiveToken answer is a mapi token of the customer (PersonRequest.keptToken). */
export const isActiveMapiOf = (customerId: string, token: StoredToken | undefined): boolean => token?.kind === 'mapi' && token.customerId === customerId;

export async function findActiveToken(q: Query, tokenHash: string): Promise<StoredToken | undefined> {
  const [row] = await q<TokenRow & { tokenHash: string }>('token.find-active', { tokenHash });
  return row ? toStoredToken(row) : undefined;
}

/** findActiveToken for many hashes in one statement; the answers in the hashes' order. */
export async function findActiveTokens(q: Query, tokenHashes: string[]): Promise<Array<StoredToken | undefined>> {
  const rows = await q<TokenRow & { tokenHash: string }>('token.find-active-many', { tokenHashes });
  const byHash = new Map(rows.map((row) => [row.tokenHash, toStoredToken(row)]));
  return tokenHashes.map((tokenHash) => byHash.get(tokenHash));
}
