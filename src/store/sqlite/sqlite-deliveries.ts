// The delivery half of the embedded store, sharing the identity store's connection. Delivery, condition and
// message ids are numbered per customer (delivery_sequences) and never given out twice to one customer.
import type Database from 'better-sqlite3';
import {
  assembleDelivery,
  type Delivery,
  type DeliveryDraft,
  type DeliveryPage,
  keptMessageIds,
  ZERO_COUNTS,
} from '../../domain/deliveries';

type SequenceName = 'delivery' | 'condition' | 'message';

export class SqliteDeliveries {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      page: db.prepare('SELECT document FROM deliveries WHERE customer_id = ? ORDER BY delivery_id LIMIT ? OFFSET ?').pluck(),
      count: db.prepare('SELECT COUNT(*) FROM deliveries WHERE customer_id = ?').pluck(),
      one: db.prepare('SELECT document FROM deliveries WHERE customer_id = ? AND delivery_id = ?').pluck(),
      insert: db.prepare('INSERT INTO deliveries (customer_id, delivery_id, condition_id, document) VALUES (?, ?, ?, ?)'),
      update: db.prepare('UPDATE deliveries SET document = ? WHERE customer_id = ? AND delivery_id = ?'),
      delete: db.prepare('DELETE FROM deliveries WHERE customer_id = ? AND delivery_id = ?'),
      next: db
        .prepare(
          `INSERT INTO delivery_sequences (customer_id, name, last) VALUES (?, ?, ?)
           ON CONFLICT (customer_id, name) DO UPDATE SET last = last + excluded.last RETURNING last`,
        )
        .pluck(),
    };
  }

  /** The customer's next `count` ids of a sequence, in increasing order. Call inside a write transaction. */
  private next(customerId: string, name: SequenceName, count: number): number[] {
    if (count === 0) return [];
    const last = this.s.next.get(customerId, name, count) as number;
    return Array.from({ length: count }, (_, i) => last - count + 1 + i);
  }

  list(customerId: string, offset: number, limit: number): DeliveryPage {
    const items = (this.s.page.all(customerId, limit, offset) as string[]).map((d) => JSON.parse(d) as Delivery);
    return { items, total: this.s.count.get(customerId) as number };
  }

  get(customerId: string, deliveryId: number): Delivery | undefined {
    const document = this.s.one.get(customerId, deliveryId) as string | undefined;
    return document === undefined ? undefined : (JSON.parse(document) as Delivery);
  }

  /** Call inside a write transaction. */
  create(customerId: string, draft: DeliveryDraft): Delivery {
    const [conditionId] = this.next(customerId, 'condition', 1) as [number];
    const messageIds = this.next(customerId, 'message', draft.message.length);
    const [deliveryId] = this.next(customerId, 'delivery', 1) as [number];
    const delivery = assembleDelivery(draft, { deliveryId, conditionId, messageIds, counts: ZERO_COUNTS });
    this.s.insert.run(customerId, deliveryId, conditionId, JSON.stringify(delivery));
    return delivery;
  }

  /** Call inside a write transaction. */
  replace(customerId: string, deliveryId: number, draft: DeliveryDraft): Delivery | undefined {
    const existing = this.get(customerId, deliveryId);
    if (!existing) return undefined;
    const { iphone_delivery_count, android_delivery_count, delivery_count, condition_id } = existing.condition;
    const kept = keptMessageIds(existing, draft);
    const fresh = this.next(customerId, 'message', kept.filter((k) => k === undefined).length);
    const messageIds = kept.map((k) => k ?? (fresh.shift() as number));
    const delivery = assembleDelivery(draft, {
      deliveryId,
      conditionId: condition_id,
      messageIds,
      counts: { iphone_delivery_count, android_delivery_count, delivery_count },
    });
    this.s.update.run(JSON.stringify(delivery), customerId, deliveryId);
    return delivery;
  }

  delete(customerId: string, deliveryId: number): boolean {
    return this.s.delete.run(customerId, deliveryId).changes > 0;
  }
}
