// A SQLite file made before impressions (migrations 1 to 5) is carried forward by migration 6: its deliveries keep
// their documents and the counts written in them, and then count impressions, replace and delete like new ones
// (migration 7 then records the delete, for the sweep of what it left).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite/driver';
import type { Delivery } from '../../src/domain/deliveries';
import { migrations } from '../../src/store/sqlite/migrations';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { id } from './contract';
import { checkedImpression, checkedPerson } from '../helpers/checked-showing';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-showing-upgrade-'));
const file = path.join(dir, 'idlink.sqlite');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A delivery's document as version 5 stored it, with counts in it (no version changed them; an import might have). */
const stored = {
  name: 'Welcome',
  priority: 1,
  delivery_id: 7,
  condition: {
    trigger: { event_name: ['app_open'], period: [{ start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z' }] },
    target: { segmentation_id: 3 },
    iphone_delivery_count: 2,
    android_delivery_count: 1,
    delivery_count: 4,
    max_delivery_count: 5,
    max_total_count: 10,
    max_total_count_per_day: 10,
    category: 'onboarding',
    condition_id: 7,
    is_active: true,
  },
  message: [{ template_id: 1, title: 'Hi', body: 'Welcome', image_url: 'https://example.com/a.png', buttons: [], message_id: 7 }],
};

/** The same delivery as the store reads it. */
const read: Delivery = {
  name: 'Welcome',
  priority: 1,
  deliveryId: 7,
  condition: {
    trigger: { eventName: ['app_open'], period: [{ start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z' }] },
    target: { segmentationId: 3 },
    iphoneDeliveryCount: 2,
    androidDeliveryCount: 1,
    deliveryCount: 4,
    maxDeliveryCount: 5,
    maxTotalCount: 10,
    maxTotalCountPerDay: 10,
    category: 'onboarding',
    conditionId: 7,
    isActive: true,
  },
  message: [{ templateId: 1, title: 'Hi', body: 'Welcome', imageUrl: 'https://example.com/a.png', buttons: [], messageId: 7 }],
};

beforeAll(() => {
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of migrations.filter((m) => m.version <= 5)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-01-01T00:00:00Z');
  }
  db.prepare("INSERT INTO deliveries (customer_id, delivery_id, condition_id, document) VALUES ('acme', 7, 7, ?)").run(JSON.stringify(stored));
  db.prepare("INSERT INTO delivery_sequences (customer_id, name, last) VALUES ('acme', 'delivery', 7), ('acme', 'condition', 7), ('acme', 'message', 7)").run();
  db.close();
});

const person = { customerId: 'acme', user: id('device', 'd-1'), unlinkedTypes: [], maxNodes: 10, maxIds: 10 };
const request = { person, deliveryId: 7, platform: 'ios' as const, day: '2026-06-01', receivedAt: '2026-06-01T00:00:00.000Z' };

test('when a file made before impressions is opened, then its deliveries keep their counts and count on from them', async () => {
  const store = new SqliteStore({ path: file });
  try {
    expect(await store.getDelivery('acme', 7)).toEqual(read);
    const outcome = await store.recordImpression(checkedImpression(request));
    expect(outcome).toEqual({ answer: { deliveryId: 7, deliveryCount: 5, personTotal: 1, personToday: 1 }, replayed: false });
    expect((await store.getDelivery('acme', 7))?.condition).toMatchObject({ deliveryCount: 5, iphoneDeliveryCount: 3, androidDeliveryCount: 1 });
    const { deliveries, person: counts } = await store.eligibility(checkedPerson(person, '2026-06-01'));
    expect(deliveries.map((d) => d.condition.deliveryCount)).toEqual([5]);
    expect(counts.get(7)).toEqual({ total: 1, today: 1 });
    expect(await store.deleteDelivery('acme', 7)).toBe(true);
    expect((await store.eligibility(checkedPerson(person, '2026-06-01'))).deliveries).toEqual([]);
    // Migration 7 is there too: the impression the delivery left, then its mark.
    await expect(store.sweepDeletedDeliveries(1000)).resolves.toBe(2);
  } finally {
    await store.close();
  }
});
