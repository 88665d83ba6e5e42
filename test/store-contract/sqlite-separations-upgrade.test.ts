// A SQLite file made before separations (migrations 1 to 8) is carried forward by migration 9: its nodes keep
// their IDs, they may be separated, and a separated pair refuses a write that would make them share an ID.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite/driver';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { id, member, MEMBER } from './contract';
import { seeded } from '../helpers/seeded';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-separations-upgrade-'));
const file = path.join(dir, 'idlink.sqlite');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const before = new SqliteStore({ path: file });
  await before.putSchema('acme', MEMBER);
  await before.createNode(seeded(member('acme', 'ann')), [id('device', 'tablet')]);
  await before.createNode(seeded(member('acme', 'bob')), [id('device', 'tablet')]);
  await before.close();
  // Back to version 8 (migration 9 undone).
  const db = new Database(file);
  db.exec('DROP TABLE separations');
  db.prepare('DELETE FROM schema_migrations WHERE version = 9').run();
  db.close();
});

test('when a file without separations is opened, then its nodes are kept and can be separated, and the ban is enforced', async () => {
  const store = new SqliteStore({ path: file });
  try {
    const audit = { requestId: '', actor: 'admin' };
    const ann = member('acme', 'ann');
    const bob = member('acme', 'bob');
    expect(await store.getNodeIds(bob)).toEqual([id('device', 'tablet'), id('member_id', 'bob')]);
    await expect(store.separate({ customerId: 'acme', a: ann, b: bob, removeSharedFrom: 'b', audit })).resolves.toEqual({ idsRemoved: 1 });
    await expect(store.insertIds(seeded(bob), [id('device', 'tablet')])).rejects.toMatchObject({ code: 'separated_nodes' });
    expect(await store.listSeparations('acme', 0, 10)).toEqual({
      items: [{ a: { schemaId: 'member', key: ann.key }, b: { schemaId: 'member', key: bob.key } }],
      total: 1,
    });
  } finally {
    await store.close();
  }
});
