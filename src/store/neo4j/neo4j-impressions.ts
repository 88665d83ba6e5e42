// Showing messages on Neo4j (docs/deliveries.md): a person's IDs and impressions, and counting impressions. Counts are
// (:ImpressionCount) vertices per delivery, ID and calendar day; idempotency keys (:ImpressionKey) vertices. Every
// function runs inside a call of the store (it receives the call's Query): recordInGraph and recordAllInGraph in a
// write whose every statement is its own transaction (Transactions.writeAlone, through ./gathered-impressions.ts),
// the others in a read or a write transaction.
import { deliveryNotFound, type ImpressionAnswer, type ImpressionOutcome, type PersonCounts } from '../../domain/deliveries';
import { compareCodePoints } from '../../domain/code-point-order';
import { isDomainError } from '../../domain/errors';
import type { IdPair } from '../../domain/model';
import { type CapName, refuseOverCap } from '../../domain/showing';
import { mapiTokenRevoked, personTooLarge, policyChanged } from '../../domain/refusals';
import { parseDeliveryDocument, parseImpressionAnswer } from '../delivery-document';
import { capsOf, type LiveCounts, parseStored } from './neo4j-deliveries';
import { showingMark, showingPolicyOf } from './kept-policies';
import type { MarkedImpression, MarkedPerson } from './checked-showing';
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
  /** Whether the person's mapiToken is still an active mapi token of the customer (true without one). */
  tokenActive: boolean;
}

/**
 * What one person.counts statement asks about: a person, of every delivery, on `day`; and the live counts of
 * `deliveryIds` (none when absent), for eligibility weighed against a kept catalogue.
 */
export interface PersonAsk {
  person: MarkedPerson;
  day: string;
  deliveryIds?: number[];
}

/**
 * The person.counts row of one ask: the person's impressions by delivery, in all and on `day`, recorded against the
 * IDs of the component of the user's ID, or the user's ID alone when no node holds it.
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
    mapiToken: p.mapiToken ?? null,
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
    mapiToken: p.mapiToken ?? null,
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
 * checked against a kept policy (MarkedPerson.policyMark) that the row says has changed; invalid_token, first,
 * when the call's mapi token (PersonRequest.mapiToken) is active no more.
 */
export function countsOf(p: MarkedPerson, row: PersonCountsRow | undefined): Map<number, PersonCounts> {
  if (row && p.mapiToken !== undefined && !row.tokenActive) throw mapiTokenRevoked();
  if (row && p.policyMark !== undefined && showingMark(row.secureTypes, row.unlinkedTypes, row.timezone[0]) !== p.policyMark) throw policyChanged();
  if (row && (row.visited > p.maxNodes || row.idsRead > p.maxIds)) throw personTooLarge(p);
  return new Map((row?.counts ?? []).map((r) => [r.deliveryId, { total: r.total, today: r.today }]));
}

/** What impression.count.cypher did with an impression: counted it, or why not. */
type Outcome =
  'counted' | 'counted_before' | 'replayed' | 'invalid_token' | 'delivery_not_found' | 'caps_unknown' | 'schema_changed' | 'component_too_large' | CapName;

/** A row of impression.count.cypher: one impression's. */
interface CountRow {
  index: number;
  outcome: Outcome;
  /** The answer, unless the impression was refused: its delivery count, person total and person today. */
  answerCounts: AnswerCounts | null;
  /** The answer an earlier version stored as a document with the idempotency key. */
  answer: string | null;
  /** With 'caps_unknown' and a cap's name. */
  document: string | null;
  deliveryCount: number;
  iphoneCount: number;
  androidCount: number;
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

/** An impression of the store call `writeId`: what impression.count.cypher counts. */
export interface WrittenImpression {
  request: MarkedImpression;
  writeId: string;
}

/** Runs of impression.count for one impression: a second after its delivery's caps were copied, and one to spare. */
const COUNT_RUNS = 3;

/**
 * One impression of the store call `writeId`, in one auto-commit statement (impression.count.cypher) that takes the
 * delivery's lock, reads the idempotency key, the person's counts and what the person's checks used of the policy,
 * checks them and counts the impression only when every check lets it through; a refused impression counts
 * nothing. The checks, in this order: the call's mapi token revoked since (nothing is answered to it, not even a
 * replay), a missing delivery, a replay, the person's refusals, then the caps: the statement applies their rule
 * (capReached), and refuseOverCap, given what it read, names the refusal.
 *
 * The statement is its own transaction, so a run again after a lost reply finds what the attempt that committed
 * did, and answers its answer ('counted_before'). A delivery an earlier version wrote gets its caps copied from its
 * document first ('caps_unknown').
 */
export async function recordInGraph(q: Query, r: MarkedImpression, writeId: string): Promise<ImpressionOutcome> {
  for (let run = 1; ; run += 1) {
    const [row] = await countRows(q, [{ request: r, writeId }]);
    const outcome = outcomeOf(r, row);
    if (outcome !== 'caps_unknown') return outcome;
    if (run === COUNT_RUNS) throw new Error("impression.count kept finding the delivery's caps missing");
    await keepCaps(q, r.person.customerId, r.deliveryId, row?.document as string);
  }
}

/**
 * Impressions of distinct deliveries with the same maxNodes and maxIds, each as recordInGraph records it, in one
 * auto-commit statement: the outcome of each, or its refusal, in the order given. An impression whose delivery's
 * caps an earlier version did not write runs again alone, once they are copied; a failure of that statement that
 * is no refusal fails the call, which runs again what it can (Transactions.writeAlone), as a failure of the shared
 * statement does.
 */
export async function recordAllInGraph(q: Query, impressions: WrittenImpression[]): Promise<Array<PromiseSettledResult<ImpressionOutcome>>> {
  const rows = await countRows(q, impressions);
  const settled: Array<PromiseSettledResult<ImpressionOutcome>> = [];
  for (const [index, { request, writeId }] of impressions.entries()) {
    let outcome: ImpressionOutcome | 'caps_unknown';
    try {
      outcome = outcomeOf(request, rows[index]);
      if (outcome === 'caps_unknown') {
        await keepCaps(q, request.person.customerId, request.deliveryId, rows[index]?.document as string);
        outcome = await recordInGraph(q, request, writeId);
      }
    } catch (e) {
      if (!isDomainError(e) && rows[index]?.outcome === 'caps_unknown') throw e;
      settled.push({ status: 'rejected', reason: e });
      continue;
    }
    settled.push({ status: 'fulfilled', value: outcome });
  }
  return settled;
}

/** The rows of impression.count for `impressions`, in their order; the statement takes their locks in delivery order. */
async function countRows(q: Query, impressions: WrittenImpression[]): Promise<Array<CountRow | undefined>> {
  const [first] = impressions;
  const params = impressions.map(({ request: r, writeId }, index) => ({
    index: int(index),
    customer: r.person.customerId,
    deliveryId: int(r.deliveryId),
    key: r.idempotencyKey ?? null,
    write: writeId,
    type: r.person.user.type,
    value: r.person.user.id,
    unlinkedTypes: r.person.unlinkedTypes,
    day: r.day,
    platform: r.platform,
    receivedAt: r.receivedAt,
    mapiToken: r.person.mapiToken ?? null,
    keptPolicy: r.person.policyMark === undefined ? null : showingPolicyOf(r.person.policyMark),
  }));
  params.sort((a, b) => compareCodePoints(a.customer, b.customer) || a.deliveryId.compare(b.deliveryId));
  const rows = await q<CountRow>('impression.count', {
    impressions: params,
    maxNodes: int(first?.request.person.maxNodes ?? 0),
    maxIds: int(first?.request.person.maxIds ?? 0),
  });
  return rowsByAsk(rows, impressions.length).map(([row]) => row);
}

/** What a row of impression.count answers for impression `r`: its outcome, 'caps_unknown', or its refusal, thrown. */
function outcomeOf(r: MarkedImpression, row: CountRow | undefined): ImpressionOutcome | 'caps_unknown' {
  if (row === undefined) throw new Error('impression.count answered no row for an impression');
  switch (row.outcome) {
    case 'counted':
    case 'counted_before':
      return { answer: answerOf(r.deliveryId, row.answerCounts as AnswerCounts), replayed: false };
    case 'replayed':
      return { answer: row.answer !== null ? parseImpressionAnswer(row.answer) : answerOf(r.deliveryId, row.answerCounts as AnswerCounts), replayed: true };
    case 'invalid_token':
      throw mapiTokenRevoked();
    case 'delivery_not_found':
      throw deliveryNotFound(r.deliveryId);
    case 'schema_changed':
      throw policyChanged();
    case 'component_too_large':
      throw personTooLarge(r.person);
    case 'caps_unknown':
      return 'caps_unknown';
    default:
      refuseOverCap({ delivery: parseStored({ ...row, document: row.document as string }), person: { total: row.total, today: row.today } });
      throw new Error(`impression.count refused the impression over ${row.outcome}, which refuseOverCap lets through`);
  }
}

/** Copies a delivery's caps from its document to its vertex, where an earlier version did not write them. */
async function keepCaps(q: Query, customerId: string, deliveryId: number, document: string): Promise<void> {
  await q('delivery.keep-caps', { customer: customerId, deliveryId: int(deliveryId), document, ...capsOf(parseDeliveryDocument(document)) });
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
