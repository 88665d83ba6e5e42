// API tokens on Neo4j, (:Token) vertices; each function runs in a store transaction (it receives its Query). The
// mapi tokens a lookup found are kept for the lookups a recent answer will do for (RecentMapiTokens).
import { LRUCache } from 'lru-cache';
import type { TokenRecord } from '../../domain/model';
import type { StoredToken, TokenLookup } from '../../domain/ports/tokens';
import type { KeptToken } from '../../domain/ports/inventory';
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

/** Every token, revoked ones included (inventory.tokens.cypher). */
export async function keptTokens(q: Query): Promise<KeptToken[]> {
  const rows = await q<TokenRow & { tokenHash: string; revokedAt: string | null }>('inventory.tokens');
  return rows.map((row) => ({ ...toTokenRecord(row), tokenHash: row.tokenHash, revokedAt: row.revokedAt ?? null }));
}

/** Stores tokens as another store kept them (inventory.put-tokens.cypher). */
export async function putKeptTokens(q: Query, tokens: KeptToken[], writeId: string): Promise<void> {
  await q('inventory.put-tokens', { tokens, write: writeId });
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

/** Whether a findActiveToken answer is a mapi token of the customer (PersonRequest.mapiToken). */
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

/** Mapi tokens kept (RecentMapiTokens): the least recently used goes first. */
const RECENT_MAPI_TOKENS = 1_024;

/**
 * Store.findActiveToken on Neo4j. A lookup with TokenLookup.recent is answered from the mapi tokens earlier lookups
 * found, when it is one of them, without a round trip: its call's statement checks the token again (person.counts,
 * impression.count). Every other lookup reads the token, and keeps it when it is an active mapi token, or forgets
 * it. Only mapi tokens are kept: no statement checks another kind.
 */
export class RecentMapiTokens {
  private readonly found = new LRUCache<string, StoredToken>({ max: RECENT_MAPI_TOKENS });

  constructor(private readonly read: (tokenHash: string) => Promise<StoredToken | undefined>) {}

  async find(tokenHash: string, lookup: TokenLookup = {}): Promise<StoredToken | undefined> {
    const kept = lookup.recent === true ? this.found.get(tokenHash) : undefined;
    if (kept) return kept;
    const token = await this.read(tokenHash);
    if (token?.kind === 'mapi') this.found.set(tokenHash, token);
    else this.found.delete(tokenHash);
    return token;
  }
}
