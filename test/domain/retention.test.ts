// HISTORY_RETENTION_DAYS on a real store: entries older than the period go, in batches, and newer ones stay; on
// SQLite, so do the rows of IDs no node holds once no entry names them. And the sweep of what deleted deliveries
// left (DeletedDeliverySweep), in batches, resumed by retention after a stop.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite/driver';
import type { IdPair, NodeAddress, SchemaRecord } from '../../src/domain/model';
import { DeletedDeliverySweep, HistoryRetention } from '../../src/domain/retention';
import { createLogger } from '../../src/logger';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { MemoryTransport } from '../helpers/app';
import { buildCondition, buildDraft } from '../helpers/deliveries';
import { waitFor } from '../helpers/settling';
import { checkedImpression } from '../helpers/checked-showing';
import { seeded } from '../helpers/seeded';

const SCHEMA: SchemaRecord = {
  schemaId: 'member',
  idTypes: [
    { type: 'member_id', secure: false },
    { type: 'device', secure: false },
  ],
};
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

/** Waits until the clock is past `ms` (history entries are stamped to the millisecond), and answers that time. */
const clockPast = (ms: number): Promise<number> => waitFor('the clock to move on', () => (Date.now() > ms ? Date.now() : false), { everyMs: 1 });

const historyOf = async (memberId: string) => (await store.nodeHistory('acme', 'member', id('member_id', memberId), 0, 100)).items.map((e) => e.op);

test('when the retention period has passed for some entries, then exactly those are deleted, across several batches', async () => {
  for (let n = 0; n < 2_500; n += 1) await store.createNode(seeded(node(`old-${n}`)), []);
  const boundary = await clockPast(Date.now());
  await clockPast(boundary);
  await store.insertIds(seeded(node('old-0')), [id('device', 'd-1')]);
  // A clock one day past the boundary, with a retention of one day: the creates are older, the insert is not.
  const retention = new HistoryRetention(store, 1, logger, () => boundary + DAY_MS);
  expect(await retention.prune()).toBe(2_500);
  expect(await historyOf('old-0')).toEqual(['insert']);
  expect(await historyOf('old-2499')).toEqual([]);
  expect(await retention.prune()).toBe(0);
});

test('when no entry is past the period, then none is deleted', async () => {
  await store.createNode(seeded(node('m-1')), [id('device', 'd-1')]);
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
      return db.prepare("SELECT value FROM ids WHERE customer_id = 'acme' ORDER BY value").pluck().all() as string[];
    } finally {
      db.close();
    }
  }

  test('when the entries naming a removed or erased ID are pruned, then its row goes; IDs still held stay', async () => {
    const file = path.join(dir, 'gc.sqlite');
    const fileStore = new SqliteStore({ path: file });
    try {
      await fileStore.putSchema('acme', SCHEMA);
      await fileStore.createNode(seeded(node('m-1')), [id('device', 'kept'), id('device', 'removed'), id('device', 'erased')]);
      await fileStore.removeId(seeded(node('m-1')), id('device', 'removed'));
      await fileStore.erase({
        customerId: 'acme',
        id: id('device', 'erased'),
        scope: 'id',
        unlinkedTypes: [],
        maxNodes: 10,
        maxIds: 10,
        audit: { requestId: 'r', actor: 'admin' },
      });
      // The removal's entry still names `removed`: its row stays, though no node holds it.
      expect(storedValues(file)).toEqual(['kept', 'm-1', 'removed']);
      const later = (await clockPast(Date.now())) + DAY_MS;
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

describe('the sweep of what deleted deliveries left', () => {
  /** A delivery of acme shown once to each of `people` IDs no node holds (one impression count each), then deleted. */
  async function deletedAfterShowing(on: SqliteStore, people: number): Promise<void> {
    // Caps the 2,500 displays do not reach.
    const { deliveryId } = await on.createDelivery('acme', buildDraft({ condition: buildCondition({ max_delivery_count: 10_000 }) }));
    for (let n = 0; n < people; n += 1) {
      const person = { customerId: 'acme', user: id('device', `d-${n}`), unlinkedTypes: [], maxNodes: 10, maxIds: 10 };
      await on.recordImpression(checkedImpression({ person, deliveryId, platform: 'ios', day: '2026-06-01', receivedAt: new Date().toISOString() }));
    }
    expect(await on.deleteDelivery('acme', deliveryId)).toBe(true);
  }

  const sweptLines = () => memory.lines.filter((line) => line.includes('deleted the impressions and idempotency keys of deleted deliveries'));

  test('when a delivery shown to 2,500 IDs is deleted, then one sweep deletes what it left in batches of 1,000, and logs how many once', async () => {
    await deletedAfterShowing(store, 2_500);
    const batches = jest.spyOn(store, 'sweepDeletedDeliveries');
    const logged = sweptLines().length;

    await new DeletedDeliverySweep(store, logger).sweep();

    // 2,500 counts and the delivery's mark.
    expect(await Promise.all(batches.mock.results.map((r) => r.value))).toEqual([1_000, 1_000, 501]);
    expect(batches.mock.calls).toEqual([[1_000], [1_000], [1_000]]);
    expect(
      sweptLines()
        .slice(logged)
        .map((line) => JSON.parse(line).deleted),
    ).toEqual([2_501]);
    await expect(store.sweepDeletedDeliveries(1_000)).resolves.toBe(0);
  });

  test('when a sweep is asked for while one runs, then the running one goes round once more, and both callers wait for it', async () => {
    await deletedAfterShowing(store, 3);
    const { deliveryId: later } = await store.createDelivery('acme', buildDraft());
    const batches = jest.spyOn(store, 'sweepDeletedDeliveries');
    const sweep = new DeletedDeliverySweep(store, logger);
    const first = sweep.sweep();
    // Deleted after the first batch began (the store applies writes in turn): only a second round takes what it left.
    const deleting = store.deleteDelivery('acme', later);
    const second = sweep.sweep();
    expect(second).toBe(first);
    await Promise.all([first, deleting]);
    expect(await Promise.all(batches.mock.results.map((r) => r.value))).toEqual([4, 1]);
  });

  test('when the store fails during a sweep, then the sweep logs a warning and resolves, and the next sweep finishes the work', async () => {
    await deletedAfterShowing(store, 3);
    jest.spyOn(store, 'sweepDeletedDeliveries').mockRejectedValueOnce(new Error('database is locked'));
    const sweep = new DeletedDeliverySweep(store, logger);
    await expect(sweep.sweep()).resolves.toBeUndefined();
    expect(memory.lines.at(-1)).toContain('deleting the impressions of deleted deliveries failed');
    await sweep.sweep();
    expect(JSON.parse(sweptLines().at(-1) as string).deleted).toBe(4);
    await expect(store.sweepDeletedDeliveries(1_000)).resolves.toBe(0);
  });

  test('when the service stops before a sweep and starts again, then the first retention round deletes what the delivery left', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-sweep-'));
    const file = path.join(dir, 'sweep.sqlite');
    try {
      const before = new SqliteStore({ path: file });
      await before.putSchema('acme', SCHEMA);
      await deletedAfterShowing(before, 5);
      await before.close();

      const after = new SqliteStore({ path: file });
      try {
        const sweep = new DeletedDeliverySweep(after, logger);
        const swept = jest.spyOn(sweep, 'sweep');
        const retention = new HistoryRetention(after, 365, logger, Date.now, sweep);
        retention.start();
        retention.stop();
        expect(swept).toHaveBeenCalledTimes(1);
        await swept.mock.results[0]?.value;
        expect(JSON.parse(sweptLines().at(-1) as string).deleted).toBe(6);
        await expect(after.sweepDeletedDeliveries(1_000)).resolves.toBe(0);
      } finally {
        await after.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
