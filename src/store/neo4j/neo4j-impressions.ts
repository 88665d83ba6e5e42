// Showing messages on Neo4j (docs/deliveries.md): a person's IDs and impressions, and counting one impression. Counts are
// (:ImpressionCount) vertices per delivery, ID and calendar day; idempotency keys (:ImpressionKey) vertices. Every
// function runs inside a transaction of the store (it receives the transaction's Query).
import {
  deliveryNotFound,
  type ImpressionAnswer,
  type ImpressionOutcome,
  type ImpressionRequest,
  type ImpressionState,
  NO_IMPRESSIONS,
  type PersonCounts,
  type PersonRequest,
} from '../../domain/deliveries';
import type { IdPair } from '../../domain/model';
import { keptTokenRevoked, personTooLarge, policyChanged } from '../../domain/store';
import { parseImpressionAnswer } from '../delivery-document';
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
 * The person.counts row of one ask: the person's impressions by delivery, in all and on `day`, recorded against the IDs of the component of the user's ID, or the user's ID alone when no node holds it.
 */
export async function personCountsRow(q: Query, { person: p, day, deliveryIds = [] }: PersonAsk): Promise<PersonCountsRow | undefined> {
  const [row] = await q<PersonCountsRow>('person.counts', {
    customer: p.customerId,
    type: p.user.type,
    value: p.user.id,
    unlinkedTypes: p.unlinkedTypes,
    maxNodes: int(p.maxNodes),
    maxIds: int(p.maxIds),
    day,
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

/** A row of impression.count.cypher. */
interface CountRow extends Pick<PersonCountsRow, 'visited' | 'idsRead' | 'secureTypes' | 'unlinkedTypes' | 'timezone' | 'tokenActive'> {
  document: string | null;
  deliveryCount: number;
  iphoneCount: number;
  androidCount: number;
  /** The answer stored with the idempotency key: as a document by an earlier version, or as its counts. */
  answer: string | null;
  earlierCounts: AnswerCounts | null;
  /** What this impression answers when it is counted. */
  answerCounts: AnswerCounts;
  total: number;
  today: number;
}

/** An impression answer as the graph keeps it: its delivery count, person total and person today. */
type AnswerCounts = [number, number, number];

const answerOf = (deliveryId: number, [deliveryCount, personTotal, personToday]: AnswerCounts): ImpressionAnswer => ({
  deliveryId,
  deliveryCount,
  personTotal,
  personToday,
});

/**
 * One impression inside one write transaction of the store call `writeId`, in one statement (impression.count.cypher):
 * the delivery's lock first, so that impressions of one delivery are applied one at a time, each reading what the
 * one before committed; then the idempotency key, the person's counts and what the person's checks used of the
 * policy, and the count. The checks come after, on what it read, in this order: a kept mapi token revoked since first
 * (nothing is answered to it, not even a replay), a missing delivery or a replay (nothing was counted), then the
 * person's refusals and `check`. A refusal throws, which rolls the transaction back, count included.
 */
export async function recordInGraph(q: Query, r: ImpressionRequest, check: (state: ImpressionState) => void, writeId: string): Promise<ImpressionOutcome> {
  const p = r.person;
  const [row] = await q<CountRow>('impression.count', {
    customer: p.customerId,
    deliveryId: int(r.deliveryId),
    key: r.idempotencyKey ?? null,
    write: writeId,
    type: p.user.type,
    value: p.user.id,
    unlinkedTypes: p.unlinkedTypes,
    maxNodes: int(p.maxNodes),
    maxIds: int(p.maxIds),
    day: r.day,
    platform: r.platform,
    receivedAt: r.receivedAt,
    keptToken: p.keptToken ?? null,
  });
  if (row === undefined) throw new Error('impression.count answered no row');
  if (p.keptToken !== undefined && !row.tokenActive) throw keptTokenRevoked();
  if (row.document === null) throw deliveryNotFound(r.deliveryId);
  if (row.answer !== null) return { answer: parseImpressionAnswer(row.answer), replayed: true };
  if (row.earlierCounts !== null) return { answer: answerOf(r.deliveryId, row.earlierCounts), replayed: true };
  const counts = [{ deliveryId: r.deliveryId, total: row.total, today: row.today }];
  const person = countsOf(p, { ...row, counts, catalogueVersion: [], live: [] }).get(r.deliveryId) ?? NO_IMPRESSIONS;
  check({ delivery: parseStored({ ...row, document: row.document }), person });
  return { answer: answerOf(r.deliveryId, row.answerCounts), replayed: false };
}

/** ifCommitted of an impression: the answer of the impression this store call counted, when its commit went through. */
export async function countedBy(q: Query, r: ImpressionRequest, writeId: string): Promise<ImpressionOutcome | undefined> {
  const [row] = await q<{ answerCounts: AnswerCounts }>('impression.counted-by', {
    customer: r.person.customerId,
    deliveryId: int(r.deliveryId),
    write: writeId,
  });
  return row ? { answer: answerOf(r.deliveryId, row.answerCounts), replayed: false } : undefined;
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
