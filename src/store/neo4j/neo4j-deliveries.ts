// The delivery half of the Neo4j store: each delivery is a :Delivery vertex whose `document` is the JSON of the
// Delivery as written (src/store/delivery-document.ts) (what the client controls, and the ids), with its live counts as properties beside it
// (impression.count.cypher keeps them). Delivery, condition and message ids come from the customer's own :Sequence
// counters and are never given out twice to one customer. Every method runs inside a transaction of the store (it
// receives the transaction's Query).
import { LRUCache } from 'lru-cache';
import {
  assembleDelivery,
  type Delivery,
  type DeliveryCounts,
  type DeliveryDraft,
  type DeliveryPage,
  keptMessageIds,
  withCounts,
  ZERO_COUNTS,
} from '../../domain/deliveries';
import { deliveryDocument, parseDeliveryDocument } from '../delivery-document';
import { present } from '../../domain/invariant';
import { int, type Query, rowsByAsk } from './query';

/** `catalogue` counts the changes of the customer's deliveries: its count is their version (Catalogue). */
type SequenceName = 'delivery' | 'condition' | 'message' | 'catalogue';

/** A delivery as the statements return it: the document and the counts kept beside it. */
interface StoredDelivery {
  document: string;
  deliveryCount: number;
  iphoneCount: number;
  androidCount: number;
}

type Counts = Omit<StoredDelivery, 'document'>;

/** A delivery's live counts, as person.counts.cypher reads them (`live`) for a kept catalogue. */
export type LiveCounts = Counts & { deliveryId: number };

export const countsOf = (row: Counts): DeliveryCounts => ({
  deliveryCount: row.deliveryCount,
  iphoneDeliveryCount: row.iphoneCount,
  androidDeliveryCount: row.androidCount,
});

export const parseStored = (row: StoredDelivery): Delivery => withCounts(parseDeliveryDocument(row.document), countsOf(row));

/** A delivery's caps, as the properties of its vertex that impression.count.cypher checks (integers, as counts are). */
export const capsOf = ({ condition: c }: Delivery) => ({
  maxDeliveryCount: int(c.maxDeliveryCount),
  maxTotalCount: int(c.maxTotalCount),
  maxTotalCountPerDay: int(c.maxTotalCountPerDay),
});

/** A row of delivery.catalogue.cypher: the document is null when the caller knows its revision. */
type CatalogueRow = Counts & { version: number; deliveryId: number; revision: number; document: string | null };

/**
 * A customer's deliveries as a catalogue read answered them, with the catalogue's version then: what eligibility
 * weighs while person.counts.cypher answers the same version (their counts, read then, are not live).
 */
export interface Catalogue {
  version: number;
  deliveries: Delivery[];
}

/** A delivery's document as parsed, and the revision it was read at (delivery.catalogue.cypher). */
interface ParsedRevision {
  revision: number;
  delivery: Delivery;
}

/** The [deliveryId, revision] pairs of parsed documents (delivery.catalogue.cypher's `known`). */
const known = (cached: Map<number, ParsedRevision>) => [...cached].map(([deliveryId, { revision }]) => [int(deliveryId), int(revision)]);

/** Parsed documents are kept for this many customers' deliveries (see Neo4jDeliveries.all). */
const CACHED_CUSTOMERS = 100;

export class Neo4jDeliveries {
  /**
   * Eligibility weighs every delivery of a customer on each request: their parsed documents are kept by revision,
   * which every replacement raises in the database (delivery.lock.cypher), so that processes sharing one Neo4j
   * never use a stale one; only documents that changed are read again.
   */
  private readonly documents = new LRUCache<string, Map<number, ParsedRevision>>({ max: CACHED_CUSTOMERS });

  /**
   * The last catalogue read of each customer, by its version, which every create, replacement and delete of one of
   * the customer's deliveries raises in the database (their `catalogue` sequence): eligibility weighs a kept one, and
   * its person.counts statement answers the version now, so that processes sharing one Neo4j never weigh a stale one.
   * A customer without deliveries is not kept (a read of its catalogue answers no row, so no version).
   */
  private readonly catalogues = new LRUCache<string, Catalogue>({ max: CACHED_CUSTOMERS });

  /** The customer's catalogue as last read by this process; undefined when none is kept. */
  kept(customerId: string): Catalogue | undefined {
    return this.catalogues.get(customerId);
  }

  /** Forgets the customer's kept catalogue if it is still the one of `version` (a newer read may have replaced it). */
  forget(customerId: string, version: number): void {
    if (this.catalogues.get(customerId)?.version === version) this.catalogues.delete(customerId);
  }

  /** Raises the customer's catalogue version: the last statement of each delivery write (after its other sequences). */
  private async changed(q: Query, customerId: string): Promise<void> {
    await this.next(q, customerId, 'catalogue', 1);
  }

  /** The customer's next `count` ids of a sequence, in increasing order. */
  private async next(q: Query, customerId: string, name: SequenceName, count: number): Promise<number[]> {
    if (count === 0) return [];
    const last = await this.last(q, customerId, name, count);
    return Array.from({ length: count }, (_, i) => last - count + 1 + i);
  }

  /** Takes the customer's next `count` ids of a sequence; answers the last of them. */
  private async last(q: Query, customerId: string, name: SequenceName, count: number): Promise<number> {
    const [row] = await q<{ last: number }>('sequence.next', { customer: customerId, name, count: int(count) });
    return present(row?.last, 'the row sequence.next answers');
  }

  /** The searchable copies of a few document fields and the caps (see delivery.create.cypher), beside the document itself. */
  private properties(delivery: Delivery) {
    return {
      name: delivery.name,
      // An integer, like the ids: a JS number would be stored as a float (the document keeps the exact value anyway).
      priority: int(delivery.priority),
      isActive: delivery.condition.isActive,
      ...capsOf(delivery),
      document: deliveryDocument(delivery),
    };
  }

  async list(q: Query, customerId: string, offset: number, limit: number): Promise<DeliveryPage> {
    const [row] = await q<{ total: number; items: Array<StoredDelivery | null> }>('delivery.list', {
      customer: customerId,
      offset: int(offset),
      limit: int(limit),
    });
    // A document is null only if its delivery was deleted between being listed and being read.
    const items = (row?.items ?? []).filter((d): d is StoredDelivery => typeof d?.document === 'string').map(parseStored);
    return { items, total: row?.total ?? 0 };
  }

  async get(q: Query, customerId: string, deliveryId: number): Promise<Delivery | undefined> {
    const [row] = await q<StoredDelivery>('delivery.get', { customer: customerId, deliveryId: int(deliveryId) });
    return row ? parseStored(row) : undefined;
  }

  /** Every delivery of the customer with its live counts, in delivery_id order. */
  async all(q: Query, customerId: string): Promise<Delivery[]> {
    const cached = this.parsed(customerId);
    const rows = await q<CatalogueRow>('delivery.catalogue', { customer: customerId, known: known(cached) });
    return this.catalogued(customerId, cached, rows);
  }

  /** `all` of many customers in one statement (delivery.catalogue-many.cypher); the answers in the customers' order. */
  async allOf(q: Query, customerIds: string[]): Promise<Delivery[][]> {
    const asks = customerIds.map((customerId) => ({ customerId, cached: this.parsed(customerId) }));
    const customers = asks.map(({ customerId, cached }, index) => ({ index: int(index), customer: customerId, known: known(cached) }));
    const rows = await q<CatalogueRow & { index: number }>('delivery.catalogue-many', { customers });
    const byCustomer = rowsByAsk(rows, customerIds.length);
    return asks.map(({ customerId, cached }, index) => this.catalogued(customerId, cached, byCustomer[index] ?? []));
  }

  /** The customer's documents parsed already, by delivery id; taken before the statement whose `known` they are. */
  private parsed(customerId: string): Map<number, ParsedRevision> {
    return this.documents.get(customerId) ?? new Map<number, ParsedRevision>();
  }

  /** The deliveries of the customer's catalogue rows, each parsed document kept for the next read. */
  private catalogued(customerId: string, cached: Map<number, ParsedRevision>, rows: CatalogueRow[]): Delivery[] {
    const fresh = new Map<number, ParsedRevision>();
    const deliveries = rows.map((row) => {
      const parsed =
        row.document === null
          ? present(cached.get(row.deliveryId), 'the parsed document the statement was told is known')
          : { revision: row.revision, delivery: parseDeliveryDocument(row.document) };
      fresh.set(row.deliveryId, parsed);
      return withCounts(parsed.delivery, countsOf(row));
    });
    // Deleted deliveries leave the cache with this.
    this.documents.set(customerId, fresh);
    const [first] = rows;
    if (first !== undefined) this.catalogues.set(customerId, { version: first.version, deliveries });
    return deliveries;
  }

  /** The delivery the store call `writeId` created or replaced last, as stored; undefined when there is none. */
  async writtenBy(q: Query, customerId: string, writeId: string): Promise<Delivery | undefined> {
    const [row] = await q<StoredDelivery>('delivery.written-by', { customer: customerId, write: writeId });
    return row ? parseStored(row) : undefined;
  }

  /**
   * Call inside a write transaction of the store call `writeId`, which the delivery then carries (see
   * Transactions.write in ./neo4j-transactions.ts). Sequences are always taken in the order condition, message, delivery.
   */
  async create(q: Query, customerId: string, draft: DeliveryDraft, writeId: string): Promise<Delivery> {
    const conditionId = await this.last(q, customerId, 'condition', 1);
    const messageIds = await this.next(q, customerId, 'message', draft.message.length);
    const deliveryId = await this.last(q, customerId, 'delivery', 1);
    const delivery = assembleDelivery(draft, {
      deliveryId,
      conditionId,
      messageIds,
      counts: ZERO_COUNTS,
    });
    await q('delivery.create', {
      customer: customerId,
      deliveryId: int(delivery.deliveryId),
      conditionId: int(delivery.condition.conditionId),
      ...this.properties(delivery),
      write: writeId,
    });
    await this.changed(q, customerId);
    return delivery;
  }

  /**
   * An import batch's deliveries (import.deliveries.cypher), with their ids and counts as exported, inside its write
   * transaction `writeId`; raises the catalogue version. The ids given are raised beforehand (import.sequences.cypher).
   */
  async imported(q: Query, customerId: string, deliveries: readonly Delivery[], writeId: string): Promise<void> {
    if (deliveries.length === 0) return;
    await q('import.deliveries', {
      customer: customerId,
      deliveries: deliveries.map((d) => ({
        deliveryId: int(d.deliveryId),
        conditionId: int(d.condition.conditionId),
        ...this.properties(d),
        deliveryCount: int(d.condition.deliveryCount),
        iphoneCount: int(d.condition.iphoneDeliveryCount),
        androidCount: int(d.condition.androidDeliveryCount),
      })),
      write: writeId,
    });
  }

  /**
   * Call inside a write transaction of the store call `writeId`. Keeps ids and counts, and the message ids sent
   * back that belong to this delivery.
   */
  async replace(q: Query, customerId: string, deliveryId: number, draft: DeliveryDraft, writeId: string): Promise<Delivery | undefined> {
    const [row] = await q<StoredDelivery>('delivery.lock', { customer: customerId, deliveryId: int(deliveryId), write: writeId });
    if (!row) return undefined;
    const existing = parseStored(row);
    const kept = keptMessageIds(existing, draft);
    const fresh = await this.next(q, customerId, 'message', kept.filter((k) => k === undefined).length);
    const messageIds = kept.map((k) => k ?? present(fresh.shift(), 'a fresh message id'));
    const { iphoneDeliveryCount, androidDeliveryCount, deliveryCount, conditionId } = existing.condition;
    const delivery = assembleDelivery(draft, {
      deliveryId,
      conditionId,
      messageIds,
      counts: { iphoneDeliveryCount, androidDeliveryCount, deliveryCount },
    });
    await q('delivery.update', { customer: customerId, deliveryId: int(deliveryId), ...this.properties(delivery) });
    await this.changed(q, customerId);
    return delivery;
  }

  /** Call inside a write transaction. Its impressions and idempotency keys are left to sweepDeleted. */
  async delete(q: Query, customerId: string, deliveryId: number): Promise<boolean> {
    const [row] = await q<{ deleted: number }>('delivery.delete', { customer: customerId, deliveryId: int(deliveryId) });
    const deleted = (row?.deleted ?? 0) > 0;
    if (deleted) await this.changed(q, customerId);
    return deleted;
  }

  /**
   * Deletes up to `limit` of what deleted deliveries left: each one's impression counts, then its idempotency keys,
   * then the vertex that marks it. Answers how many; fewer than `limit` when none is left. Call inside a write
   * transaction; `write` names it (delivery.next-deleted.cypher).
   */
  async sweepDeleted(q: Query, limit: number, write: string): Promise<number> {
    const deletedBy = async (
      name: 'impression.sweep-of-deleted' | 'impression.sweep-keys-of-deleted' | 'delivery.forget-deleted',
      params: Record<string, unknown>,
    ) => (await q<{ deleted: number }>(name, params))[0]?.deleted ?? 0;
    let deleted = 0;
    // Deleted deliveries another sweep finished while this one waited for their lock; a bound, for safety's sake.
    let finishedByAnother = 0;
    while (deleted < limit && finishedByAnother < limit) {
      const [next] = await q<{ customer: string | null; deliveryId: number | null }>('delivery.next-deleted', { write });
      if (!next) break;
      if (next.customer === null || next.deliveryId === null) {
        finishedByAnother += 1;
        continue;
      }
      const of = { customer: next.customer, deliveryId: int(next.deliveryId) };
      deleted += await deletedBy('impression.sweep-of-deleted', { ...of, limit: int(limit - deleted) });
      if (deleted < limit) deleted += await deletedBy('impression.sweep-keys-of-deleted', { ...of, limit: int(limit - deleted) });
      if (deleted < limit) deleted += await deletedBy('delivery.forget-deleted', of);
    }
    return deleted;
  }
}
