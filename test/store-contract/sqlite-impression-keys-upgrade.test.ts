// A SQLite file whose idempotency keys were stored before they named the ID they were counted against (migrations 1
// to 7) is carried forward by migration 8: each such key still answers its repeats, names no ID (''), and an erase
// of its customer deletes it, since any may be the erased person's; keys of other customers stay.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite/driver';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { buildCondition, buildDraft } from '../helpers/deliveries';
import { id } from './contract';
import { checkedImpression } from '../helpers/checked-showing';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-keys-upgrade-'));
const file = path.join(dir, 'idlink.sqlite');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** An answer as the earlier version stored it, and as the store answers it now. */
const answer = (person_total: number) => ({ delivery_id: 1, delivery_count: 3, person_total, person_today: 1 });
const answered = (personTotal: number) => ({ deliveryId: 1, deliveryCount: 3, personTotal, personToday: 1 });

beforeAll(async () => {
  // acme and bolt each have delivery 1, made by the store as version 7 had it.
  const before = new SqliteStore({ path: file });
  // Caps no test here reaches.
  const draft = buildDraft({ condition: buildCondition({ max_total_count: 100, max_total_count_per_day: 100 }) });
  await before.createDelivery('acme', draft);
  await before.createDelivery('bolt', draft);
  await before.close();
  const db = new Database(file);
  // Back to version 7 (migration 8 undone), holding keys as version 7 wrote them.
  db.exec('DROP INDEX impression_keys_by_id; ALTER TABLE impression_keys DROP COLUMN id_type; ALTER TABLE impression_keys DROP COLUMN id_value');
  db.prepare('DELETE FROM schema_migrations WHERE version = 8').run();
  const insert = db.prepare('INSERT INTO impression_keys (customer_id, delivery_id, key, answer, created_at) VALUES (?, 1, ?, ?, ?)');
  const at = new Date().toISOString();
  insert.run('acme', 'k-ann', JSON.stringify(answer(1)), at);
  insert.run('acme', 'k-bob', JSON.stringify(answer(2)), at);
  insert.run('bolt', 'k-cy', JSON.stringify(answer(3)), at);
  db.close();
});

const request = (customerId: string, key: string) => ({
  person: { customerId, user: id('device', 'd-1'), unlinkedTypes: [], maxNodes: 10, maxIds: 10 },
  deliveryId: 1,
  platform: 'ios' as const,
  day: '2026-06-01',
  idempotencyKey: key,
  receivedAt: new Date().toISOString(),
});

test('when a file with keys that name no ID is opened, then they still replay, and an erase of their customer deletes them all, not those of others', async () => {
  const store = new SqliteStore({ path: file });
  try {
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT customer_id, key, id_type, id_value FROM impression_keys ORDER BY key').all()).toEqual([
      { customer_id: 'acme', key: 'k-ann', id_type: '', id_value: '' },
      { customer_id: 'acme', key: 'k-bob', id_type: '', id_value: '' },
      { customer_id: 'bolt', key: 'k-cy', id_type: '', id_value: '' },
    ]);
    db.close();
    await expect(store.recordImpression(checkedImpression(request('acme', 'k-bob')))).resolves.toEqual({ answer: answered(2), replayed: true });

    const audit = { requestId: 'req-erase', actor: 'admin' };
    await store.erase({ customerId: 'acme', id: id('email', 'ann@example.com'), scope: 'person', unlinkedTypes: [], maxNodes: 10, maxIds: 10, audit });

    expect((await store.recordImpression(checkedImpression(request('acme', 'k-ann')))).replayed).toBe(false);
    expect((await store.recordImpression(checkedImpression(request('acme', 'k-bob')))).replayed).toBe(false);
    await expect(store.recordImpression(checkedImpression(request('bolt', 'k-cy')))).resolves.toEqual({ answer: answered(3), replayed: true });
  } finally {
    await store.close();
  }
});
