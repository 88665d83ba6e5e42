// Runs the delivery store contract against the embedded SQLite store, in memory and on a file in WAL mode, and checks the upgrade of a
// file written with the counters all customers shared (migration 3).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite/driver';
import type { Delivery } from '../../src/domain/deliveries';
import { migrations } from '../../src/store/sqlite/migrations';
import { deliveryDocument } from '../../src/store/delivery-document';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { earlier, expectNumberingAfterUpgrade, storedEarlier as stored } from '../helpers/delivery-ids-upgrade';
import { describeDeliveryContract } from './deliveries-contract';

describeDeliveryContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));

describe('the delivery contract on a SQLite file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-delivery-contract-'));
  const file = path.join(dir, 'idlink.sqlite');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  describeDeliveryContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));

  test('when the store has opened the file, then its journal mode is WAL', async () => {
    const store = new SqliteStore({ path: file });
    try {
      await store.ping();
      const probe = new Database(file, { readonly: true });
      try {
        expect(probe.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        probe.close();
      }
    } finally {
      await store.close();
    }
  });
});

describe('a SQLite file whose deliveries were numbered by counters all customers shared', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-delivery-ids-'));
  const file = path.join(dir, 'idlink.sqlite');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const old = earlier;

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
    const put = (customer: string, d: Delivery) => insert.run(d.deliveryId, customer, d.condition.conditionId, deliveryDocument(d));
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
      await expectNumberingAfterUpgrade(store);
    } finally {
      await store.close();
    }
  });
});
