// HISTORY_RETENTION_DAYS on a real store: entries older than the period go, in batches, and newer ones stay.
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
