// The delivery half of the embedded store, sharing the identity store's connection. Delivery, condition and
// message ids are numbered per customer (delivery_sequences) and never given out twice to one customer. A
// delivery's counts are a row of delivery_counts beside its document (migration 6), its impressions rows of
// impression_counts, and the answers of its idempotency keys rows of impression_keys, each with the ID it was counted
// against, which an erase finds it by (migration 8); a deleted delivery's impressions and keys are deleted in batches
// after it (deleted_deliveries, migration 7).
import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import {
  assembleDelivery,
  type Delivery,
  type DeliveryCounts,
  type DeliveryDraft,
  type DeliveryPage,
  type ImpressionAnswer,
  keptMessageIds,
  type Platform,
  withCounts,
  ZERO_COUNTS,
} from '../../domain/deliveries';
import { present } from '../../domain/invariant';
import type { IdPair } from '../../domain/model';
import { deliveryDocument, impressionAnswerDocument, parseDeliveryDocument, parseImpressionAnswer } from '../delivery-document';

type SequenceName = 'delivery' | 'condition' | 'message';

/** A delivery's rows by what names them. */
type CustomerDelivery = [customerId: string, deliveryId: number];

/** What an idempotency key stored before keys named their ID names (migration 8): no ID type is empty. */
const LEGACY_KEY_OWNER: IdPair = { type: '', id: '' };

/** A row of delivery_counts, raw: delivery_count, iphone_count, android_count. */
type CountsRaw = [number, number, number];

const countsOf = ([deliveryCount, iphoneDeliveryCount, androidDeliveryCount]: CountsRaw): DeliveryCounts => ({
  deliveryCount,
  iphoneDeliveryCount,
  androidDeliveryCount,
});

/** A document and its counts, raw, as the page and one statements read them. */
export type DeliveryRaw = [string, ...CountsRaw];

export const parseRow = ([document, ...counts]: DeliveryRaw): Delivery => withCounts(parseDeliveryDocument(document), countsOf(counts));

/** The documents of this many customers stay parsed (Catalogue): one entry is a customer's deliveries, a few KB each. */
const CACHED_CUSTOMERS = 100;

interface Catalogue {
  /** PRAGMA data_version when read: another connection's commit changes it. */
  dataVersion: number;
  documents: Map<number, Delivery>;
}

export class SqliteDeliveries {
  private readonly s;
  /**
   * Every eligibility request weighs all of a customer's deliveries: their parsed documents are kept, and only
   * counts are read each time. A delivery write of this connection drops the customer's entry; a commit of another
   * connection (another process on the file) changes data_version, and each entry read before it is read again.
   */
  private readonly catalogues = new LRUCache<string, Catalogue>({ max: CACHED_CUSTOMERS });

  constructor(db: Database.Database) {
    this.s = {
      page: db
        .prepare<[customerId: string, limit: number, offset: number], DeliveryRaw>(
          'SELECT d.document, c.delivery_count, c.iphone_count, c.android_count FROM deliveries d JOIN delivery_counts c USING (customer_id, delivery_id) ' +
            'WHERE d.customer_id = ? ORDER BY d.delivery_id LIMIT ? OFFSET ?',
        )
        .raw(),
      count: db.prepare<[customerId: string], number>('SELECT COUNT(*) FROM deliveries WHERE customer_id = ?').pluck(),
      one: db
        .prepare<[customerId: string, deliveryId: number], DeliveryRaw>(
          'SELECT d.document, c.delivery_count, c.iphone_count, c.android_count FROM deliveries d JOIN delivery_counts c USING (customer_id, delivery_id) ' +
            'WHERE d.customer_id = ? AND d.delivery_id = ?',
        )
        .raw(),
      documents: db
        .prepare<[customerId: string], [deliveryId: number, document: string]>(
          'SELECT delivery_id, document FROM deliveries WHERE customer_id = ? ORDER BY delivery_id',
        )
        .raw(),
      countsOf: db
        .prepare<[customerId: string, deliveryId: number], CountsRaw>(
          'SELECT delivery_count, iphone_count, android_count FROM delivery_counts WHERE customer_id = ? AND delivery_id = ?',
        )
        .raw(),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      insert: db.prepare<[customerId: string, deliveryId: number, conditionId: number, document: string]>(
        'INSERT INTO deliveries (customer_id, delivery_id, condition_id, document) VALUES (?, ?, ?, ?)',
      ),
      insertCounts: db.prepare<CustomerDelivery>(
        'INSERT INTO delivery_counts (customer_id, delivery_id, delivery_count, iphone_count, android_count) VALUES (?, ?, 0, 0, 0)',
      ),
      update: db.prepare<[document: string, customerId: string, deliveryId: number]>(
        'UPDATE deliveries SET document = ? WHERE customer_id = ? AND delivery_id = ?',
      ),
      delete: db.prepare<CustomerDelivery>('DELETE FROM deliveries WHERE customer_id = ? AND delivery_id = ?'),
      deleteCounts: db.prepare<CustomerDelivery>('DELETE FROM delivery_counts WHERE customer_id = ? AND delivery_id = ?'),
      markDeleted: db.prepare<CustomerDelivery>('INSERT INTO deleted_deliveries (customer_id, delivery_id) VALUES (?, ?)'),
      nextDeleted: db.prepare<[], CustomerDelivery>('SELECT customer_id, delivery_id FROM deleted_deliveries LIMIT 1').raw(),
      // Up to a limit of a deleted delivery's rows, through impression_counts_by_delivery and the primary keys.
      // CAST: a bare `LIMIT ?` is planned with its value, and so prepared again on every bind.
      sweepImpressions: db.prepare<[customerId: string, deliveryId: number, limit: number]>(
        'DELETE FROM impression_counts WHERE (customer_id, id_type, id_value, delivery_id, day) IN ' +
          '(SELECT customer_id, id_type, id_value, delivery_id, day FROM impression_counts WHERE customer_id = ? AND delivery_id = ? LIMIT CAST(? AS INTEGER))',
      ),
      sweepKeys: db.prepare<{ customer: string; delivery: number; limit: number }>(
        'DELETE FROM impression_keys WHERE customer_id = @customer AND delivery_id = @delivery AND key IN ' +
          '(SELECT key FROM impression_keys WHERE customer_id = @customer AND delivery_id = @delivery LIMIT CAST(@limit AS INTEGER))',
      ),
      forgetDeleted: db.prepare<CustomerDelivery>('DELETE FROM deleted_deliveries WHERE customer_id = ? AND delivery_id = ?'),
      countDisplay: db
        .prepare<{ customer: string; delivery: number; platform: Platform }, number>(
          `UPDATE delivery_counts SET delivery_count = delivery_count + 1,
           iphone_count = iphone_count + (@platform = 'ios'), android_count = android_count + (@platform = 'android')
         WHERE customer_id = @customer AND delivery_id = @delivery RETURNING delivery_count`,
        )
        .pluck(),
      countImpression: db.prepare<[customerId: string, idType: string, idValue: string, deliveryId: number, day: string]>(
        `INSERT INTO impression_counts (customer_id, id_type, id_value, delivery_id, day, count) VALUES (?, ?, ?, ?, ?, 1)
         ON CONFLICT (customer_id, id_type, id_value, delivery_id, day) DO UPDATE SET count = count + 1`,
      ),
      keyAnswer: db
        .prepare<[customerId: string, deliveryId: number, key: string], string>(
          'SELECT answer FROM impression_keys WHERE customer_id = ? AND delivery_id = ? AND key = ?',
        )
        .pluck(),
      insertKey: db.prepare<[customerId: string, deliveryId: number, key: string, answer: string, createdAt: string, idType: string, idValue: string]>(
        'INSERT INTO impression_keys (customer_id, delivery_id, key, answer, created_at, id_type, id_value) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      oldKeys: db
        .prepare<[before: string, limit: number], [customerId: string, deliveryId: number, key: string]>(
          'SELECT customer_id, delivery_id, key FROM impression_keys WHERE created_at < ? ORDER BY created_at LIMIT ?',
        )
        .raw(),
      deleteKey: db.prepare<[customerId: string, deliveryId: number, key: string]>(
        'DELETE FROM impression_keys WHERE customer_id = ? AND delivery_id = ? AND key = ?',
      ),
      eraseImpressions: db.prepare<[customerId: string, idType: string, idValue: string]>(
        'DELETE FROM impression_counts WHERE customer_id = ? AND id_type = ? AND id_value = ?',
      ),
      // Through impression_keys_by_id; type '' also finds the keys stored before they named their ID (migration 8).
      eraseKeys: db.prepare<[customerId: string, idType: string, idValue: string]>(
        'DELETE FROM impression_keys WHERE customer_id = ? AND id_type = ? AND id_value = ?',
      ),
      next: db
        .prepare<[customerId: string, name: SequenceName, count: number], number>(
          `INSERT INTO delivery_sequences (customer_id, name, last) VALUES (?, ?, ?)
           ON CONFLICT (customer_id, name) DO UPDATE SET last = last + excluded.last RETURNING last`,
        )
        .pluck(),
    };
  }

  /** The customer's next `count` ids of a sequence, in increasing order. Call inside a write transaction. */
  private next(customerId: string, name: SequenceName, count: number): number[] {
    if (count === 0) return [];
    const last = this.nextOne(customerId, name, count);
    return Array.from({ length: count }, (_, i) => last - count + 1 + i);
  }

  /** The customer's next id of a sequence (the last of `count` taken: RETURNING always answers the row). */
  private nextOne(customerId: string, name: SequenceName, count = 1): number {
    return present(this.s.next.get(customerId, name, count), 'the row of a sequence');
  }

  list(customerId: string, offset: number, limit: number): DeliveryPage {
    const items = this.s.page.all(customerId, limit, offset).map(parseRow);
    return { items, total: present(this.s.count.get(customerId), 'the row of COUNT(*)') };
  }

  get(customerId: string, deliveryId: number): Delivery | undefined {
    const row = this.s.one.get(customerId, deliveryId);
    return row === undefined ? undefined : parseRow(row);
  }

  /**
   * The customer's deliveries in delivery_id order, split by `showable`: those it accepts with their live counts (read
   * for them alone), the others as stored. Call inside a transaction.
   */
  split(customerId: string, showable: (delivery: Delivery) => boolean): { shown: Delivery[]; others: Delivery[] } {
    const shown: Delivery[] = [];
    const others: Delivery[] = [];
    for (const delivery of this.documents(customerId).values()) {
      if (!showable(delivery)) {
        others.push(delivery);
        continue;
      }
      const row = this.s.countsOf.get(customerId, delivery.deliveryId);
      if (row !== undefined) shown.push(withCounts(delivery, countsOf(row)));
    }
    return { shown, others };
  }

  /** One delivery with its live counts, its document parsed once (see catalogues). Call inside a transaction. */
  one(customerId: string, deliveryId: number): Delivery | undefined {
    const row = this.s.countsOf.get(customerId, deliveryId);
    if (row === undefined) return undefined;
    return withCounts(present(this.documents(customerId).get(deliveryId), 'the document of a delivery that has counts'), countsOf(row));
  }

  /** Drops every parsed document: after a transaction that may have cached some was rolled back. */
  forgetDocuments(): void {
    this.catalogues.clear();
  }

  /** The customer's parsed documents by delivery id, read again when this or another connection changed them. */
  private documents(customerId: string): Map<number, Delivery> {
    const dataVersion = present(this.s.dataVersion.get(), 'PRAGMA data_version');
    const cached = this.catalogues.get(customerId);
    if (cached !== undefined && cached.dataVersion === dataVersion) return cached.documents;
    const documents = new Map(this.s.documents.all(customerId).map(([id, d]) => [id, parseDeliveryDocument(d)]));
    this.catalogues.set(customerId, { dataVersion, documents });
    return documents;
  }

  /** Drops the customer's kept documents: its rows changed outside these methods (an import). */
  forget(customerId: string): void {
    this.catalogues.delete(customerId);
  }

  /** Call inside a write transaction. */
  create(customerId: string, draft: DeliveryDraft): Delivery {
    const conditionId = this.nextOne(customerId, 'condition');
    const messageIds = this.next(customerId, 'message', draft.message.length);
    const deliveryId = this.nextOne(customerId, 'delivery');
    const delivery = assembleDelivery(draft, { deliveryId, conditionId, messageIds, counts: ZERO_COUNTS });
    this.s.insert.run(customerId, deliveryId, conditionId, deliveryDocument(delivery));
    this.s.insertCounts.run(customerId, deliveryId);
    this.catalogues.delete(customerId);
    return delivery;
  }

  /** Call inside a write transaction. */
  replace(customerId: string, deliveryId: number, draft: DeliveryDraft): Delivery | undefined {
    const existing = this.get(customerId, deliveryId);
    if (!existing) return undefined;
    const { iphoneDeliveryCount, androidDeliveryCount, deliveryCount, conditionId } = existing.condition;
    const kept = keptMessageIds(existing, draft);
    const fresh = this.next(customerId, 'message', kept.filter((k) => k === undefined).length);
    const messageIds = kept.map((k) => k ?? present(fresh.shift(), 'a fresh message id'));
    const delivery = assembleDelivery(draft, {
      deliveryId,
      conditionId,
      messageIds,
      counts: { iphoneDeliveryCount, androidDeliveryCount, deliveryCount },
    });
    this.s.update.run(deliveryDocument(delivery), customerId, deliveryId);
    this.catalogues.delete(customerId);
    return delivery;
  }

  /** Call inside a write transaction. Its impressions and idempotency keys are left to sweepDeleted. */
  delete(customerId: string, deliveryId: number): boolean {
    this.catalogues.delete(customerId);
    if (this.s.delete.run(customerId, deliveryId).changes === 0) return false;
    this.s.deleteCounts.run(customerId, deliveryId);
    this.s.markDeleted.run(customerId, deliveryId);
    return true;
  }

  /**
   * Deletes up to `limit` rows deleted deliveries left: each one's impression counts, then its idempotency keys,
   * then the row that marks it. Answers how many; fewer than `limit` when none is left. Call inside a write
   * transaction.
   */
  sweepDeleted(limit: number): number {
    let deleted = 0;
    while (deleted < limit) {
      const next = this.s.nextDeleted.get();
      if (!next) break;
      const [customerId, deliveryId] = next;
      deleted += this.s.sweepImpressions.run(customerId, deliveryId, limit - deleted).changes;
      if (deleted < limit) deleted += this.s.sweepKeys.run({ customer: customerId, delivery: deliveryId, limit: limit - deleted }).changes;
      if (deleted < limit) deleted += this.s.forgetDeleted.run(customerId, deliveryId).changes;
    }
    return deleted;
  }

  // ---- impressions

  /** The answer stored with an idempotency key of the delivery, if that key was used. */
  answerOf(customerId: string, deliveryId: number, key: string): ImpressionAnswer | undefined {
    const answer = this.s.keyAnswer.get(customerId, deliveryId, key);
    return answer === undefined ? undefined : parseImpressionAnswer(answer);
  }

  /**
   * Counts one display of the delivery against `id` on `day`; answers the delivery's count after it. Call inside a
   * write transaction, after the checks.
   */
  count(customerId: string, deliveryId: number, id: IdPair, day: string, platform: Platform): number {
    this.s.countImpression.run(customerId, id.type, id.id, deliveryId, day);
    return present(this.s.countDisplay.get({ customer: customerId, delivery: deliveryId, platform }), 'the counts row of a delivery being shown');
  }

  /** The answer to give the key's repeats, with the ID the impression was counted against, which an erase finds it by. */
  rememberKey(customerId: string, deliveryId: number, key: string, answer: ImpressionAnswer, at: string, counted: IdPair): void {
    this.s.insertKey.run(customerId, deliveryId, key, impressionAnswerDocument(answer), at, counted.type, counted.id);
  }

  /** Call inside a write transaction. */
  pruneKeys(before: string, limit: number): number {
    const old = this.s.oldKeys.all(before, limit);
    for (const [customerId, deliveryId, key] of old) this.s.deleteKey.run(customerId, deliveryId, key);
    return old.length;
  }

  /**
   * The impressions recorded against each of `ids`, and the answers of their idempotency keys, which hold the person's
   * counts; with them every key of the customer that names no ID (LEGACY_KEY_OWNER). Call inside a write transaction.
   */
  eraseImpressions(customerId: string, ids: Iterable<IdPair>): void {
    for (const id of ids) {
      this.s.eraseImpressions.run(customerId, id.type, id.id);
      this.s.eraseKeys.run(customerId, id.type, id.id);
    }
    this.s.eraseKeys.run(customerId, LEGACY_KEY_OWNER.type, LEGACY_KEY_OWNER.id);
  }
}
