// Runs the store contract against the embedded SQLite store: in memory, and on a file in a temp dir (WAL mode).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { describeStoreContract, id, member, MEMBER, newCustomer } from './contract';
import { describeHistoryContract } from './history-contract';
import { describeShowingContract } from './showing-contract';
import { describeGraphContract } from './graph-contract';

describeStoreContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
describeHistoryContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
describeShowingContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
describeGraphContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-store-contract-'));
const file = path.join(dir, 'idlink.sqlite');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describeStoreContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));
describeHistoryContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));
describeShowingContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));
describeGraphContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));

describe('sqlite file store', () => {
  test('when the store opens a file, then the database is in WAL mode', async () => {
    const store = new SqliteStore({ path: file });
    await store.ping();
    const probe = new Database(file, { readonly: true });
    try {
      expect(probe.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      probe.close();
      await store.close();
    }
  });

  test('when the store is closed and reopened, then what was written is still there', async () => {
    const c = newCustomer();
    const first = new SqliteStore({ path: file });
    await first.putSchema(c, MEMBER);
    await first.createNode(member(c, 'm1'), [id('device', 'd1')]);
    await first.close();
    const second = new SqliteStore({ path: file });
    try {
      expect(await second.getSchema(c, 'member')).toEqual(MEMBER);
      expect(await second.getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
    } finally {
      await second.close();
    }
  });
});
