// HISTORY_RETENTION_DAYS on a real store: entries older than the period go, in batches, and newer ones stay; on
// SQLite, so do the rows of IDs no node holds once no entry names them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { IdPair, NodeAddress, SchemaRecord } from '../../src/domain/model';
import { HistoryRetention } from '../../src/domain/retention';
import { createLogger } from '../../src/logger';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { MemoryTransport } from '../helpers/app';

const SCHEMA: SchemaRecord = { schemaId: 'member', idTypes: [{ type: 'member_id', secure: false }, { type: 'device', secure: false }] };
const id = (type: string, value: string): IdPair => ({ type, id: value });
const node = (memberId: string): NodeAddress => ({ customerId: 'acme', schemaId: 'member', key: id('member_id', memberId), expectedTypes: SCHEMA.idTypes });
const DAY_MS = 24 * 60 * 60 * 1000;

let store: SqliteStore;
const memory = new MemoryTransport();
const logger = createLogger({ level: 'debug', transports: [memory], pretty: false });
beforeEach(async () => {
  store = new SqliteStore({ path: ':memory:' });
  await store.putSchema('acme', SCHEMA);
});
afterEach(() => store.close());

const historyOf = async (memberId: string) => (await store.nodeHistory('acme', 'member', id('member_id', memberId), 0, 100)).items.map((e) => e.op);

test('when the retention period has passed for some entries, then exactly those are deleted, across several batches', async () => {
  for (let n = 0; n < 2_500; n += 1) await store.createNode(node(`old-${n}`), []);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const boundary = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 5));
  await store.insertIds(node('old-0'), [id('device', 'd-1')]);
  // A clock one day past the boundary, with a retention of one day: the creates are older, the insert is not.
  const retention = new HistoryRetention(store, 1, logger, () => boundary + DAY_MS);
  expect(await retention.prune()).toBe(2_500);
  expect(await historyOf('old-0')).toEqual(['insert']);
  expect(await historyOf('old-2499')).toEqual([]);
  expect(await retention.prune()).toBe(0);
});

test('when no entry is past the period, then none is deleted', async () => {
  await store.createNode(node('m-1'), [id('device', 'd-1')]);
  expect(await new HistoryRetention(store, 365, logger).prune()).toBe(0);
  expect(await historyOf('m-1')).toEqual(['create']);
});

describe('retention of the IDs history names (SQLite keeps an ID while an entry names it)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-retention-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The values of the customer's rows in `ids`, read through a second connection. */
  function storedValues(file: string): string[] {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare("SELECT value FROM ids WHERE customer_id = 'acme' ORDER BY value").pluck().all() as string[]);
    } finally {
      db.close();
    }
  }

  test('when the entries naming a removed or erased ID are pruned, then its row goes; IDs still held stay', async () => {
    const file = path.join(dir, 'gc.sqlite');
    const fileStore = new SqliteStore({ path: file });
    try {
      await fileStore.putSchema('acme', SCHEMA);
      await fileStore.createNode(node('m-1'), [id('device', 'kept'), id('device', 'removed'), id('device', 'erased')]);
      await fileStore.removeId(node('m-1'), id('device', 'removed'));
      await fileStore.erase({ customerId: 'acme', id: id('device', 'erased'), scope: 'id', unlinkedTypes: [], maxNodes: 10, maxIds: 10, audit: { requestId: 'r', actor: 'admin' } });
      // The removal's entry still names `removed`: its row stays, though no node holds it.
      expect(storedValues(file)).toEqual(['kept', 'm-1', 'removed']);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const later = Date.now() + DAY_MS;
      expect(await new HistoryRetention(fileStore, 1, logger, () => later).prune()).toBe(3);
      expect(storedValues(file)).toEqual(['kept', 'm-1']);
      expect(await fileStore.getNodeIds(node('m-1'))).toEqual([id('device', 'kept'), id('member_id', 'm-1')]);
      const erasedRows = new Database(file, { readonly: true });
      try {
        expect(erasedRows.prepare("SELECT COUNT(*) FROM ids WHERE customer_id = ''").pluck().get()).toBe(0);
      } finally {
        erasedRows.close();
      }
    } finally {
      await fileStore.close();
    }
  });
});
