// A SQLite file made before node history (migrations 1 to 4) is carried forward by migration 5: its nodes and IDs
// stay, they have no history until they are written, and then history, erasure and retention work on them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite/driver';
import type { NodeAddress } from '../../src/domain/model';
import { migrations } from '../../src/store/sqlite/migrations';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { id, MEMBER } from './contract';
import { seeded } from '../helpers/seeded';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-history-upgrade-'));
const file = path.join(dir, 'idlink.sqlite');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const audit = { requestId: 'r-1', actor: 'admin' };
const node = (memberId: string): NodeAddress => ({
  customerId: 'acme',
  schemaId: 'member',
  key: id('member_id', memberId),
  expectedTypes: MEMBER.idTypes,
  audit,
});

beforeAll(() => {
  // The file as migrations 1 to 4 left it: two nodes sharing a device.
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of migrations.filter((m) => m.version <= 4)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-01-01T00:00:00Z');
  }
  db.prepare("INSERT INTO schemas (customer_id, schema_id) VALUES ('acme', 'member')").run();
  MEMBER.idTypes.forEach((t, position) =>
    db
      .prepare("INSERT INTO schema_id_types (customer_id, schema_id, type, secure, position) VALUES ('acme', 'member', ?, ?, ?)")
      .run(t.type, t.secure ? 1 : 0, position),
  );
  const nodePk = (key: string) =>
    Number(db.prepare("INSERT INTO nodes (customer_id, schema_id, key_type, key_id) VALUES ('acme', 'member', 'member_id', ?)").run(key).lastInsertRowid);
  const idPk = (type: string, value: string) =>
    Number(db.prepare("INSERT INTO ids (customer_id, type, value) VALUES ('acme', ?, ?)").run(type, value).lastInsertRowid);
  const [m1, m2] = [nodePk('m-1'), nodePk('m-2')];
  const [k1, k2, device] = [idPk('member_id', 'm-1'), idPk('member_id', 'm-2'), idPk('device', 'shared-tablet')];
  const link = db.prepare('INSERT INTO node_ids (node_pk, id_pk) VALUES (?, ?)');
  for (const [n, i] of [
    [m1, k1],
    [m1, device],
    [m2, k2],
    [m2, device],
  ])
    link.run(n, i);
  db.close();
});

test('when a file made before history is opened, then its nodes stay, have no history, and are written, erased and pruned like new ones', async () => {
  const store = new SqliteStore({ path: file });
  try {
    expect(await store.getNodeIds(node('m-1'))).toEqual([id('device', 'shared-tablet'), id('member_id', 'm-1')]);
    expect(await store.nodeHistory('acme', 'member', id('member_id', 'm-1'), 0, 10)).toEqual({ items: [], total: 0 });
    await store.removeId(seeded(node('m-1')), id('device', 'shared-tablet'));
    const [removal] = (await store.nodeHistory('acme', 'member', id('member_id', 'm-1'), 0, 10)).items;
    expect(removal).toMatchObject({ op: 'delete', actor: 'admin', key: id('member_id', 'm-1'), added: [], removed: [id('device', 'shared-tablet')] });
    expect(
      await store.erase({ customerId: 'acme', id: id('device', 'shared-tablet'), scope: 'person', unlinkedTypes: [], maxNodes: 10, maxIds: 10, audit }),
    ).toEqual({
      nodesDeleted: 1,
      idsRemoved: 0,
    });
    expect(await store.getNodeIds(node('m-2'))).toBeUndefined();
    // m-1 was not part of the person any more; its entry that named the tablet shows the type alone now, and an
    // erase entry that took nothing from m-1 says its history was rewritten.
    const [eraseOfM1, erasedRemoval] = (await store.nodeHistory('acme', 'member', id('member_id', 'm-1'), 0, 10)).items;
    expect(eraseOfM1).toMatchObject({ op: 'erase', added: [], removed: [] });
    expect(erasedRemoval?.removed).toEqual([{ type: 'device', id: null, erased: true }]);
    // Retention of everything (the removal, and the erase's entries for m-1 and m-2) leaves m-1, which a node holds,
    // and nothing else: the rows of the erased tablet and of m-2's key go with the last entries that named them.
    expect(await store.pruneHistory(new Date(Date.now() + 60_000).toISOString(), 100)).toBe(3);
    expect(await store.getNodeIds(node('m-1'))).toEqual([id('member_id', 'm-1')]);
  } finally {
    await store.close();
  }
  const db = new Database(file, { readonly: true });
  try {
    expect(db.prepare('SELECT customer_id, type, value FROM ids ORDER BY id_pk').all()).toEqual([{ customer_id: 'acme', type: 'member_id', value: 'm-1' }]);
  } finally {
    db.close();
  }
});
