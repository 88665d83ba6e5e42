// Runs the delivery store contract against the embedded SQLite store, in memory, and checks the upgrade of a
// file written with the counters all customers shared (migration 3).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { assembleDelivery, type Delivery, ZERO_COUNTS } from '../../src/domain/deliveries';
import { migrations } from '../../src/store/sqlite/migrations';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { buildDelivery, buildMessage } from '../helpers/deliveries';
import { describeDeliveryContract } from './deliveries-contract';

describeDeliveryContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));

describe('a SQLite file whose deliveries were numbered by counters all customers shared', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-delivery-ids-'));
  const file = path.join(dir, 'idlink.sqlite');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A delivery document as the store of migration 2 wrote it. */
  const stored = (deliveryId: number, conditionId: number, messageIds: number[]): Delivery =>
    assembleDelivery(buildDelivery({ name: `d${deliveryId}`, message: messageIds.map(() => buildMessage()) }), {
      deliveryId,
      conditionId,
      messageIds,
      counts: ZERO_COUNTS,
    });

  const old = { a1: stored(1, 1, [1, 2]), a3: stored(3, 3, [4]), b4: stored(4, 4, [5, 6]) };

  beforeAll(() => {
    // The file as migrations 1 and 2 left it: acme made deliveries 1 to 3 (2 deleted), bolt 4 and 5 (5 deleted);
    // corp holds only a revoked mapi token, dyn only a bearer token.
    const db = new Database(file);
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    for (const m of migrations.filter((m) => m.version <= 2)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2025-01-01T00:00:00Z');
    }
    const insert = db.prepare('INSERT INTO deliveries (delivery_id, customer_id, condition_id, document) VALUES (?, ?, ?, ?)');
    const put = (customer: string, d: Delivery) => insert.run(d.delivery_id, customer, d.condition.condition_id, JSON.stringify(d));
    put('acme', old.a1);
    put('acme', stored(2, 2, [3]));
    put('acme', old.a3);
    put('bolt', old.b4);
    put('bolt', stored(5, 5, [7]));
    db.prepare('DELETE FROM deliveries WHERE delivery_id IN (2, 5)').run();
    db.prepare("UPDATE id_sequences SET last = CASE name WHEN 'condition' THEN 5 ELSE 7 END").run();
    const token = db.prepare("INSERT INTO tokens VALUES (?, ?, ?, NULL, ?, '2025-01-01T00:00:00Z', ?)");
    token.run('t-corp', 'corp', 'mapi', 'hash-corp', '2025-02-01T00:00:00Z');
    token.run('t-dyn', 'dyn', 'bearer', 'hash-dyn', null);
    db.close();
  });

  test('when the store opens it, then every delivery keeps its ids, and customers who may have seen ids go on after the shared counters, new ones from 1', async () => {
    const store = new SqliteStore({ path: file });
    try {
      await expect(store.listDeliveries('acme', 0, 100)).resolves.toEqual({ items: [old.a1, old.a3], total: 2 });
      await expect(store.listDeliveries('bolt', 0, 100)).resolves.toEqual({ items: [old.b4], total: 1 });
      await expect(store.getDelivery('acme', 3)).resolves.toEqual(old.a3);

      const ids = (d: Delivery) => [d.delivery_id, d.condition.condition_id, ...d.message.map((m) => m.message_id)];
      const twoMessages = () => buildDelivery({ message: [buildMessage(), buildMessage()] });
      expect(ids(await store.createDelivery('acme', twoMessages()))).toEqual([6, 6, 8, 9]);
      expect(ids(await store.createDelivery('bolt', twoMessages()))).toEqual([6, 6, 8, 9]);
      expect(ids(await store.createDelivery('corp', twoMessages()))).toEqual([6, 6, 8, 9]);
      expect(ids(await store.createDelivery('dyn', twoMessages()))).toEqual([1, 1, 1, 2]);
      expect(ids(await store.createDelivery('newcomer', twoMessages()))).toEqual([1, 1, 1, 2]);
      expect(ids(await store.createDelivery('acme', twoMessages()))).toEqual([7, 7, 10, 11]);
      await expect(store.getDelivery('acme', 1)).resolves.toEqual(old.a1);
    } finally {
      await store.close();
    }
  });
});
