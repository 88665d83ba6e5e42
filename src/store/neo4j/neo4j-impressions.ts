// Showing messages on Neo4j (docs/deliveries.md): a person's IDs and impressions, and counting one impression. Counts are
// (:ImpressionCount) vertices per delivery, ID and calendar day; idempotency keys (:ImpressionKey) vertices. Every
// function runs inside a transaction of the store (it receives the transaction's Query).
import {
  deliveryNotFound,
  type ImpressionAnswer,
  type ImpressionOutcome,
  type ImpressionRequest,
  type ImpressionState,
  type PersonCounts,
  type PersonRequest,
} from '../../domain/deliveries';
import type { IdPair } from '../../domain/model';
import { keptTokenRevoked, personTooLarge, policyChanged } from '../../domain/store';
import { impressionAnswerDocument, parseImpressionAnswer } from '../delivery-document';
import { type LiveCounts, parseStored } from './neo4j-deliveries';
import { showingMark } from './kept-policies';
import { adoptInBatches, type Write } from './neo4j-transactions';
import { int, type Query, rowsByAsk } from './query';

/** A row of person.counts.cypher. */
export interface PersonCountsRow {
  visited: number;
  idsRead: number;
  counts: Array<{ deliveryId: number; total: number; today: number }>;
  secureTypes: string[];
  unlinkedTypes: string[];
  timezone: Array<string | null>;
  /** The customer's catalogue version now ([] before its first delivery write; delivery.catalogue.cypher). */
  catalogueVersion: number[];
  /** The live counts of the ask's deliveryIds. */
  live: LiveCounts[];
  /** Whether the person's keptToken is still an active mapi token of the customer (true without one). */
  tokenActive: boolean;
}

/**
 * What one person.counts statement asks about: a person, of every delivery, on `day`; and the live counts of
 * `deliveryIds` (none when absent), for eligibility weighed against a kept catalogue.
 */
export interface PersonAsk {
  person: PersonRequest;
  day: string;
  deliveryIds?: number[];
}

/**
 * The person.counts row of one ask: the person's impressions by delivery (only `deliveryId`'s when given), in all and
 * on `day`, recorded against the IDs of the component of the user's ID, or the user's ID alone when no node holds it.
 */
export async function personCountsRow(q: Query, { person: p, day, deliveryIds = [] }: PersonAsk, deliveryId?: number): Promise<PersonCountsRow | undefined> {
  const [row] = await q<PersonCountsRow>('person.counts', {
    customer: p.customerId,
    type: p.user.type,
    value: p.user.id,
    unlinkedTypes: p.unlinkedTypes,
    maxNodes: int(p.maxNodes),
    maxIds: int(p.maxIds),
    day,
    deliveryId: deliveryId === undefined ? null : int(deliveryId),
    deliveryIds: deliveryIds.map(int),
    keptToken: p.keptToken ?? null,
  });
  return row;
}

/** personCountsRow of many people with the same maxNodes and maxIds, in one statement (person.counts-many.cypher). */
export async function personCountsRows(q: Query, asks: PersonAsk[]): Promise<Array<PersonCountsRow | undefined>> {
  const [first] = asks;
  const people = asks.map(({ person: p, day, deliveryIds = [] }, index) => ({
    index: int(index),
    customer: p.customerId,
    type: p.user.type,
    value: p.user.id,
    unlinkedTypes: p.unlinkedTypes,
    day,
    deliveryIds: deliveryIds.map(int),
    keptToken: p.keptToken ?? null,
  }));
  const rows = await q<PersonCountsRow & { index: number }>('person.counts-many', {
    people,
    maxNodes: int(first?.person.maxNodes ?? 0),
    maxIds: int(first?.person.maxIds ?? 0),
  });
  return rowsByAsk(rows, asks.length).map(([row]) => row);
}

/**
 * The counts of a person.counts row; personTooLarge past the person's bounds. schema_changed when the person was
 * checked against a kept policy (PersonRequest.policyMark) that the row says has changed; invalid_token, first,
 * when the call's kept mapi token (PersonRequest.keptToken) is active no more.
 */
export function countsOf(p: PersonRequest, row: PersonCountsRow | undefined): Map<number, PersonCounts> {
  if (row && p.keptToken !== undefined && !row.tokenActive) throw keptTokenRevoked();
  if (row && p.policyMark !== undefined && showingMark(row.secureTypes, row.unlinkedTypes, row.timezone[0]) !== p.policyMark) throw policyChanged();
  if (row && (row.visited > p.maxNodes || row.idsRead > p.maxIds)) throw personTooLarge(p);
  return new Map((row?.counts ?? []).map((r) => [r.deliveryId, { total: r.total, today: r.today }]));
}

/**
 * One impression inside one write transaction of the store call `writeId`: the delivery's lock first
 * (impression.lock.cypher), so that impressions of one delivery are applied one at a time, each reading what the one
 * before committed; then the idempotency key, the person's counts, `check`, and the count.
 */
export async function recordInGraph(q: Query, r: ImpressionRequest, check: (state: ImpressionState) => void, writeId: string): Promise<ImpressionOutcome> {
  const c = r.person.customerId;
  const deliveryId = int(r.deliveryId);
  const locking = q<{ document: string; deliveryCount: number; iphoneCount: number; androidCount: number; answer: string | null }>('impression.lock', {
    customer: c,
    deliveryId,
    key: r.idempotencyKey ?? null,
    write: writeId,
  });
  // Sent with the lock: Neo4j counts once the lock is held, so the counts are what the impression before committed.
  const counting = personCountsRow(q, { person: r.person, day: r.day }, r.deliveryId);
  // Both settled first; then their outcomes in this order: a kept mapi token revoked since first (nothing is
  // answered to it, not even a replay), then a missing delivery or a replay, then the person's refusals.
  const [, counted] = await Promise.allSettled([locking, counting]);
  if (r.person.keptToken !== undefined && counted.status === 'fulfilled' && counted.value?.tokenActive === false) throw keptTokenRevoked();
  const [locked] = await locking;
  if (!locked) throw deliveryNotFound(r.deliveryId);
  if (locked.answer !== null) return { answer: parseImpressionAnswer(locked.answer), replayed: true };
  const person = countsOf(r.person, await counting).get(r.deliveryId) ?? { total: 0, today: 0 };
  check({ delivery: parseStored(locked), person });
  const answer: ImpressionAnswer = {
    deliveryId: r.deliveryId,
    deliveryCount: locked.deliveryCount + 1,
    personTotal: person.total + 1,
    personToday: person.today + 1,
  };
  await q('impression.record', {
    customer: c,
    deliveryId,
    type: r.person.user.type,
    value: r.person.user.id,
    day: r.day,
    platform: r.platform,
    key: r.idempotencyKey ?? null,
    answer: impressionAnswerDocument(answer),
    receivedAt: r.receivedAt,
    write: writeId,
  });
  return { answer, replayed: false };
}

/** ifCommitted of an impression: the answer of the impression this store call counted, when its commit went through. */
export async function countedBy(q: Query, r: ImpressionRequest, writeId: string): Promise<ImpressionOutcome | undefined> {
  const [row] = await q<{ answer: string }>('impression.counted-by', { customer: r.person.customerId, deliveryId: int(r.deliveryId), write: writeId });
  return row ? { answer: parseImpressionAnswer(row.answer), replayed: false } : undefined;
}

/** Retention of idempotency keys: up to `limit` of those stored before `before`. */
export async function pruneKeys(q: Query, before: string, limit: number, writeId: string): Promise<number> {
  const [row] = await q<{ deleted: number }>('impression.prune-keys', { before, limit: int(limit), write: writeId });
  return row?.deleted ?? 0;
}

/** What an idempotency key stored by an earlier version, which named no ID, names once adopted: no ID type is empty. */
export const LEGACY_KEY_OWNER: IdPair = { type: '', id: '' };

/** Keys given LEGACY_KEY_OWNER in one start-up transaction (impression.adopt-keys.cypher). */
export const ADOPT_KEYS_BATCH = 10_000;

/**
 * Start-up: gives the idempotency keys an earlier version stored without their ID the type and value '', so that an
 * erase of their customer finds them (adoptInBatches).
 */
export function adoptKeys(write: Write): Promise<number> {
  return adoptInBatches(write, 'impression.adopt-keys', ADOPT_KEYS_BATCH);
}
