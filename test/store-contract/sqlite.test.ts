// Runs the store contract against the embedded SQLite store: in memory, and on a file in a temp dir (WAL mode).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { ImportBatch } from '../../src/domain/ports/imports';
import type { ImportTask } from '../../src/store/sqlite/import-writer';
import Database from '../../src/store/sqlite/driver';
import { ReadPool } from '../../src/store/sqlite/read-pool';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { describeStoreContract, id, member, MEMBER, newCustomer } from './contract';
import { describeHistoryContract } from './history-contract';
import { describeChangesContract } from './changes-contract';
import { describeShowingContract } from './showing-contract';
import { describeGraphContract } from './graph-contract';
import { describeSeparationContract } from './separation-contract';
import { describeWhyContract } from './why-contract';
import { describeImportContract } from './import-contract';
import { seeded } from '../helpers/seeded';

describeStoreContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
describeHistoryContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
describeChangesContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
describeShowingContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
describeGraphContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
describeSeparationContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
describeWhyContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
describeImportContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-store-contract-'));
const file = path.join(dir, 'idlink.sqlite');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describeStoreContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));
describeHistoryContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));
describeChangesContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));
describeShowingContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));
describeGraphContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));
describeSeparationContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));
describeImportContract('sqlite file (WAL)', async () => new SqliteStore({ path: file }));

test('a SQLite file keeps its feed key from one open to the next, and another file has a key of its own', async () => {
  const keyOf = async (at: string) => {
    const store = new SqliteStore({ path: at });
    try {
      return await store.feedKey();
    } finally {
      await store.close();
    }
  };
  const own = path.join(dir, 'feed-key.sqlite');
  const first = await keyOf(own);
  expect(await keyOf(own)).toBe(first);
  expect(await keyOf(path.join(dir, 'feed-key-other.sqlite'))).not.toBe(first);
});

// The read pool (SQLITE_READ_WORKERS): with inlineNodes 0 every search and graph runs on a worker thread's read-only
// connection, so the identity and graph contracts prove that path.
const pooled = path.join(dir, 'idlink-pooled.sqlite');
describeStoreContract('sqlite file, reads on worker threads', async () => new SqliteStore({ path: pooled, readWorkers: 2, inlineNodes: 0 }));
describeGraphContract('sqlite file, reads on worker threads', async () => new SqliteStore({ path: pooled, readWorkers: 2, inlineNodes: 0 }));
describeWhyContract('sqlite file, reads on worker threads', async () => new SqliteStore({ path: pooled, readWorkers: 2, inlineNodes: 0 }));

describe('sqlite read pool', () => {
  const small = { step: 'ALL' as const, exclude: false, hiddenTypes: [], unlinkedTypes: [], limit: 100, maxNodes: 100, maxIds: 1000 };

  /** A new customer with members m1 and m2 sharing the device d1. */
  async function twoMembersSharingADevice(store: SqliteStore): Promise<string> {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
    await store.createNode(seeded(member(c, 'm2')), [id('device', 'd1')]);
    return c;
  }

  test('when a search visits more nodes than inlineNodes, then a worker thread answers it, and a smaller one stays on the event loop', async () => {
    const store = new SqliteStore({ path: path.join(dir, 'pool-use.sqlite'), readWorkers: 1, inlineNodes: 2 });
    const pooledSearches = jest.spyOn(ReadPool.prototype, 'search');
    try {
      const c = await twoMembersSharingADevice(store);
      const fromM1 = { ...small, customerId: c, key: { schemaId: 'member', key: id('member_id', 'm1') } };
      // two nodes: on the event loop
      expect((await store.searchWithTypes(fromM1)).results).toEqual([id('device', 'd1'), id('member_id', 'm1'), id('member_id', 'm2')]);
      expect(pooledSearches).not.toHaveBeenCalled();
      // a third, written and answered just before: the worker's own connection sees it
      await store.createNode(seeded(member(c, 'm3')), [id('device', 'd1')]);
      expect((await store.searchWithTypes(fromM1)).results).toEqual([id('device', 'd1'), id('member_id', 'm1'), id('member_id', 'm2'), id('member_id', 'm3')]);
      expect(pooledSearches).toHaveBeenCalledTimes(1);
      // a refusal made on the worker comes back as the same DomainError
      await expect(store.searchWithTypes({ ...fromM1, maxNodes: 2 })).rejects.toMatchObject({ name: 'DomainError', code: 'component_too_large' });
    } finally {
      pooledSearches.mockRestore();
      await store.close();
    }
  });

  test('when inlineNodes is 0, then a worker thread answers every search and graph, a search ONE from one node included', async () => {
    const store = new SqliteStore({ path: path.join(dir, 'pool-all.sqlite'), readWorkers: 1, inlineNodes: 0 });
    const pooledSearches = jest.spyOn(ReadPool.prototype, 'search');
    const pooledGraphs = jest.spyOn(ReadPool.prototype, 'graph');
    try {
      const c = await twoMembersSharingADevice(store);
      const fromM1 = { ...small, customerId: c, key: { schemaId: 'member', key: id('member_id', 'm1') } };
      expect((await store.searchWithTypes({ ...fromM1, step: 'ONE' })).results).toEqual([id('device', 'd1'), id('member_id', 'm1'), id('member_id', 'm2')]);
      expect(pooledSearches).toHaveBeenCalledTimes(1);
      expect((await store.graphWithTypes({ ...fromM1, answerNodes: 10 })).nodes).toHaveLength(2);
      expect(pooledGraphs).toHaveBeenCalledTimes(1);
    } finally {
      pooledSearches.mockRestore();
      pooledGraphs.mockRestore();
      await store.close();
    }
  });

  test('when the store is in memory, then there is no pool whatever readWorkers says', async () => {
    const store = new SqliteStore({ path: ':memory:', readWorkers: 4, inlineNodes: 0 });
    const pooledSearches = jest.spyOn(ReadPool.prototype, 'search');
    try {
      const c = await twoMembersSharingADevice(store);
      expect((await store.searchWithTypes({ ...small, customerId: c, where: { id: id('device', 'd1') } })).total).toBe(3);
      expect(pooledSearches).not.toHaveBeenCalled();
    } finally {
      pooledSearches.mockRestore();
      await store.close();
    }
  });
});

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
    await first.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
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

describe('sqlite import writer', () => {
  const batchOf = (c: string, ...memberIds: string[]): ImportBatch => ({
    schemas: [MEMBER],
    nodes: memberIds.map((m) => ({ schemaId: 'member', key: id('member_id', m), ids: [id('device', `d-${m}`)] })),
    separations: [],
    deliveries: [],
    impressions: [],
    history: memberIds.map((m) => ({
      schemaId: 'member',
      key: id('member_id', m),
      entries: [
        {
          at: '2026-01-02T03:04:05.678Z',
          requestId: 'req-1',
          actor: 'token:t-1',
          op: 'create' as const,
          schema: 'member',
          key: id('member_id', m),
          added: [id('device', `d-${m}`), id('member_id', m)],
          removed: [],
        },
      ],
    })),
  });

  afterEach(() => jest.restoreAllMocks());

  /** Calls `onTask` each time the store hands a task to a thread, right after: the task is then under way. */
  function onTasks(onTask: (task: ImportTask, writing: Promise<unknown>) => void) {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the pool as `this`
    const run = Piscina.prototype.run;
    return jest.spyOn(Piscina.prototype, 'run').mockImplementation(function (this: Piscina, ...args: Parameters<Piscina['run']>) {
      const writing: Promise<unknown> = run.apply(this, args);
      onTask(args[0] as ImportTask, writing);
      return writing;
    });
  }

  test('when an import batch goes into a file, then the import writer thread writes it, and a write sent meanwhile commits after it', async () => {
    const file = path.join(dir, 'import-writer.sqlite');
    const store = new SqliteStore({ path: file });
    const [c, other] = [newCustomer(), newCustomer()];
    await store.putSchema(other, MEMBER);
    await store.beginImport(c);
    // Read before the batch: the store's cache must not answer it afterwards.
    expect(await store.getSchema(c, 'member')).toBeUndefined();
    let meanwhile: Promise<unknown> | undefined;
    const runs = onTasks(() => {
      meanwhile ??= store.createNode(seeded(member(other, 'o1')), [id('device', 'd-o1')]);
    });
    try {
      expect(await store.importBatch(c, batchOf(c, 'm1', 'm2'))).toBeUndefined();
      await meanwhile;
      expect(runs).toHaveBeenCalledTimes(1);
      expect(await store.getSchema(c, 'member')).toEqual(MEMBER);
      await store.finishImport(c, { requireToken: false, timezone: 'UTC' }, []);
      expect(await store.getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd-m2'), id('member_id', 'm2')]);
      expect(await store.getNodeIds(member(other, 'o1'))).toEqual([id('device', 'd-o1'), id('member_id', 'o1')]);
      // One writer at a time, in the order they reached the file: the write sent meanwhile committed after the batch.
      const probe = new Database(file, { readonly: true });
      try {
        const writers = probe.prepare<[string, string], string>('SELECT customer_id FROM history WHERE customer_id IN (?, ?) ORDER BY entry_pk').pluck();
        expect(writers.all(c, other)).toEqual([c, c, other]);
      } finally {
        probe.close();
      }
    } finally {
      await store.close();
    }
  });

  test('when the store closes while the import writer writes a batch, then the batch is store_unavailable, and the import is undone at the next start', async () => {
    const file = path.join(dir, 'import-writer-closed.sqlite');
    const store = new SqliteStore({ path: file });
    const c = newCustomer();
    await store.beginImport(c);
    let closing: Promise<void> | undefined;
    onTasks(() => {
      closing ??= store.close();
    });
    await expect(store.importBatch(c, batchOf(c, 'm1'))).rejects.toMatchObject({ code: 'store_unavailable' });
    await closing;
    const again = new SqliteStore({ path: file });
    try {
      expect(await again.unfinishedImports(0)).toEqual([c]);
      await again.abandonImport(c);
      expect(await again.unfinishedImports(0)).toEqual([]);
      expect(await again.getNodeIds(member(c, 'm1'))).toBeUndefined();
    } finally {
      await again.close();
    }
  });

  test('when two imports send batches at once, then the import writer takes the second once the first has ended', async () => {
    const store = new SqliteStore({ path: path.join(dir, 'import-writer-two.sqlite') });
    const [a, b] = [newCustomer(), newCustomer()];
    const seen: string[] = [];
    onTasks((task, writing) => {
      seen.push(`${task.customerId} sent`);
      const ended = () => seen.push(`${task.customerId} ended`);
      void writing.then(ended, ended);
    });
    try {
      await store.beginImport(a);
      await store.beginImport(b);
      await expect(Promise.all([store.importBatch(a, batchOf(a, 'm1')), store.importBatch(b, batchOf(b, 'm1'))])).resolves.toEqual([undefined, undefined]);
      expect(seen).toEqual([`${a} sent`, `${a} ended`, `${b} sent`, `${b} ended`]);
      expect(await store.getNodeIds(member(b, 'm1'))).toEqual([id('device', 'd-m1'), id('member_id', 'm1')]);
    } finally {
      await store.close();
    }
  });
});
