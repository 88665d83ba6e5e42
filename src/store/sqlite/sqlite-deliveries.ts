// The delivery half of the embedded store, sharing the identity store's connection.
import type Database from 'better-sqlite3';
import {
  assembleDelivery,
  type Delivery,
  type DeliveryDraft,
  type DeliveryPage,
  keptMessageIds,
  ZERO_COUNTS,
} from '../../domain/deliveries';

export class SqliteDeliveries {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      page: db.prepare('SELECT document FROM deliveries WHERE customer_id = ? ORDER BY delivery_id LIMIT ? OFFSET ?').pluck(),
      count: db.prepare('SELECT COUNT(*) FROM deliveries WHERE customer_id = ?').pluck(),
      one: db.prepare('SELECT document FROM deliveries WHERE customer_id = ? AND delivery_id = ?').pluck(),
      insert: db.prepare('INSERT INTO deliveries (customer_id, condition_id, document) VALUES (?, ?, ?)'),
      update: db.prepare('UPDATE deliveries SET document = ? WHERE delivery_id = ?'),
      delete: db.prepare('DELETE FROM deliveries WHERE customer_id = ? AND delivery_id = ?'),
      next: db.prepare('UPDATE id_sequences SET last = last + 1 WHERE name = ? RETURNING last').pluck(),
    };
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
    const conditionId = this.s.next.get('condition') as number;
    const messageIds = draft.message.map(() => this.s.next.get('message') as number);
    const deliveryId = Number(this.s.insert.run(customerId, conditionId, '{}').lastInsertRowid);
    const delivery = assembleDelivery(draft, { deliveryId, conditionId, messageIds, counts: ZERO_COUNTS });
    this.s.update.run(JSON.stringify(delivery), deliveryId);
    return delivery;
  }

  /** Call inside a write transaction. */
  replace(customerId: string, deliveryId: number, draft: DeliveryDraft): Delivery | undefined {
    const existing = this.get(customerId, deliveryId);
    if (!existing) return undefined;
    const { iphone_delivery_count, android_delivery_count, delivery_count, condition_id } = existing.condition;
    const messageIds = keptMessageIds(existing, draft).map((kept) => kept ?? (this.s.next.get('message') as number));
    const delivery = assembleDelivery(draft, {
      deliveryId,
      conditionId: condition_id,
      messageIds,
      counts: { iphone_delivery_count, android_delivery_count, delivery_count },
    });
    this.s.update.run(JSON.stringify(delivery), deliveryId);
    return delivery;
  }

  delete(customerId: string, deliveryId: number): boolean {
    return this.s.delete.run(customerId, deliveryId).changes > 0;
  }
}
