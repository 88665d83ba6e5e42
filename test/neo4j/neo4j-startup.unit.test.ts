// The Neo4j store as the service runs it (src/store/neo4j/neo4j-startup.ts), without a server: Neo4jStore.connect
// answers a stand-in whose schema calls the test holds and releases. This checks what ConnectingStore decides when
// Neo4j has lost constraints or indexes of cypher/schema/; that Neo4j really loses and regains them is
// test/neo4j/faults.neo4j.test.ts (a server whose data folder is deleted).
import { DomainError } from '../../src/domain/errors';
import { ConnectingStore, DOWN_AFTER_FAILED_PINGS, PROBE_INTERVAL_MS } from '../../src/store/neo4j/neo4j-startup';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import type { SchemaObject } from '../../src/store/neo4j/statements';
import { waitFor } from '../helpers/settling';

interface Held {
  release: () => void;
  fail: (e: Error) => void;
}

/**
 * A connected store whose missingSchema answers `missing`, whose applySchema waits until the test releases it,
 * whose ping fails while `pingFails`, and whose search answers `searchFails` (when set) or an empty result.
 */
function standIn() {
  const state = {
    missing: [] as SchemaObject[],
    applied: [] as Array<{ awaitIndexes: boolean }>,
    held: [] as Held[],
    pingFails: false,
    pings: 0,
    searchFails: undefined as Error | undefined,
    searches: 0,
  };
  const store = {
    missingSchema: async () => state.missing,
    applySchema: (options: { awaitIndexes: boolean }) => {
      state.applied.push(options);
      return new Promise<void>((resolve, reject) => state.held.push({ release: resolve, fail: reject }));
    },
    ping: async () => {
      state.pings += 1;
      if (state.pingFails) throw new DomainError('store_unavailable', 'Neo4j cannot be used right now.');
    },
    search: async () => {
      state.searches += 1;
      if (state.searchFails) throw state.searchFails;
      return { results: [], total: 0, visitedNodes: 0 };
    },
    close: async () => undefined,
  };
  return { state, store };
}

/** Resolves once `condition` holds; fails the test after `timeoutMs`. */
const until = (condition: () => boolean, timeoutMs = 5_000): Promise<true> => waitFor('the condition', () => condition(), { timeoutMs });

const logger = () => ({ info: jest.fn(), warn: jest.fn(), error: jest.fn() });
const connection = { uri: 'bolt://127.0.0.1:1', username: 'neo4j', password: undefined, database: 'neo4j', schemaCheckMs: 3_600_000 };
const constraint = { name: 'idnode_key_unique', constraint: true };
const index = { name: 'history_time', constraint: false };

/** The service's store, connected to `store`; closed after each test. */
let connecting: ConnectingStore | undefined;
afterEach(async () => {
  await connecting?.close();
  connecting = undefined;
  jest.restoreAllMocks();
});

async function connected(store: object, log: ReturnType<typeof logger>): Promise<ConnectingStore> {
  jest.spyOn(Neo4jStore, 'connect').mockResolvedValue(store as unknown as Neo4jStore);
  connecting = new ConnectingStore(connection, log);
  await connecting.started;
  return connecting;
}

describe('ConnectingStore, when the service calls its store', () => {
  test('when a method is called once connected, then the connected store runs it with the same arguments, and its answer comes back', async () => {
    const { store } = standIn();
    const search = jest.fn(async (query: unknown) => ({ results: [query], total: 1, visitedNodes: 1 }));
    const service = await connected({ ...store, search }, logger());
    const query = { customerId: 'acme' };
    await expect(service.store.search(query as never)).resolves.toEqual({ results: [query], total: 1, visitedNodes: 1 });
    expect(search).toHaveBeenCalledWith(query);
  });

  test('when a method is called before Neo4j answers, then it fails with store_unavailable, and close stops the attempts', async () => {
    // An attempt that never connects, and ends when abandoned, as the driver's does when it is closed.
    jest
      .spyOn(Neo4jStore, 'connect')
      .mockImplementation(
        (_connection, options) => new Promise<never>((_resolve, reject) => options?.signal?.addEventListener('abort', () => reject(new Error('abandoned')))),
      );
    connecting = new ConnectingStore(connection, logger());
    await expect(connecting.store.listSchemas('acme')).rejects.toMatchObject({
      code: 'store_unavailable',
      message: 'The service is still connecting to Neo4j.',
    });
    await connecting.store.close();
    await expect(connecting.started).resolves.toBeUndefined();
  });
});

describe('ConnectingStore, when Neo4j has lost part of cypher/schema/', () => {
  test('when a constraint is missing, then every call answers 503 store_unavailable until all of cypher/schema/ is applied again and online, and both are logged', async () => {
    const { state, store } = standIn();
    const log = logger();
    const service = await connected(store, log);
    await expect(service.store.ping()).resolves.toBeUndefined();

    state.missing = [constraint, index];
    const check = service.checkSchema();
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.applied).toEqual([{ awaitIndexes: true }]);
    const refused = await service.store.ping().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'store_unavailable', message: 'Neo4j is missing constraints of this service; it is applying them again.' });
    await expect(service.store.search({} as never)).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(log.warn).toHaveBeenCalledWith(expect.stringContaining('applying them again'), { missing: ['idnode_key_unique', 'history_time'], serving: false });

    state.held[0]?.release();
    await check;
    await expect(service.store.ping()).resolves.toBeUndefined();
    expect(log.info).toHaveBeenCalledWith('applied cypher/schema/ to Neo4j again', { missing: ['idnode_key_unique', 'history_time'] });
  });

  test('when only an index is missing, then it is applied again without waiting for it to come online, and calls are served meanwhile', async () => {
    const { state, store } = standIn();
    const service = await connected(store, logger());
    state.missing = [index];
    const check = service.checkSchema();
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.applied).toEqual([{ awaitIndexes: false }]);
    await expect(service.store.ping()).resolves.toBeUndefined();
    state.held[0]?.release();
    await check;
  });

  test('when applying a missing constraint again fails, then calls stay refused and it is logged as an error, until a later check finds everything in place', async () => {
    const { state, store } = standIn();
    const log = logger();
    const service = await connected(store, log);
    state.missing = [constraint];
    const check = service.checkSchema();
    await new Promise((resolve) => setImmediate(resolve));
    // A second check while the first runs is the same check: one attempt at a time.
    expect(service.checkSchema()).toBe(check);
    state.held[0]?.fail(new Error('Unable to create Constraint( name=idnode_key_unique ): Both Node(1) and Node(2) have the same key'));
    await check;
    expect(state.applied).toHaveLength(1);
    expect(log.error).toHaveBeenCalledWith('applying cypher/schema/ to Neo4j again failed; trying again at the next check', {
      error: expect.stringContaining('Unable to create Constraint'),
    });
    await expect(service.store.ping()).rejects.toMatchObject({ code: 'store_unavailable' });

    state.missing = [];
    await service.checkSchema();
    await expect(service.store.ping()).resolves.toBeUndefined();
    expect(log.info).toHaveBeenCalledWith('cypher/schema/ is in place on Neo4j again');
  });

  test('when nothing is missing, then nothing is applied and nothing is logged', async () => {
    const { state, store } = standIn();
    const log = logger();
    const service = await connected(store, log);
    log.info.mockClear();
    await service.checkSchema();
    expect(state.applied).toEqual([]);
    expect([...log.info.mock.calls, ...log.warn.mock.calls, ...log.error.mock.calls]).toEqual([]);
  });
});

describe('ConnectingStore, when Neo4j goes away after it was connected', () => {
  const unavailable = () => new DomainError('store_unavailable', 'Neo4j cannot be used right now.');
  const warnedDown = (log: ReturnType<typeof logger>) => log.warn.mock.calls.some(([message]) => String(message).startsWith('Neo4j cannot be reached'));

  test('when a call fails with store_unavailable and then two pings in a row fail, then every call answers 503 at once without reaching Neo4j, until a ping succeeds', async () => {
    const { state, store } = standIn();
    const log = logger();
    const service = await connected(store, log);
    state.searchFails = unavailable();
    state.pingFails = true;
    await expect(service.store.search({} as never)).rejects.toMatchObject({ code: 'store_unavailable' });
    await until(() => warnedDown(log));
    expect(state.pings).toBe(DOWN_AFTER_FAILED_PINGS);

    const searches = state.searches;
    await expect(service.store.search({} as never)).rejects.toMatchObject({ code: 'store_unavailable', message: 'Neo4j cannot be reached right now.' });
    await expect(service.store.ping()).rejects.toMatchObject({ code: 'store_unavailable', message: 'Neo4j cannot be reached right now.' });
    expect(state.searches).toBe(searches);

    state.pingFails = false;
    state.searchFails = undefined;
    await until(() => log.info.mock.calls.some(([message]) => message === 'Neo4j answers again; serving requests'), 2 * PROBE_INTERVAL_MS + 1_000);
    await expect(service.store.search({} as never)).resolves.toMatchObject({ total: 0 });
    expect(state.searches).toBe(searches + 1);
  });

  test('when a call fails with store_unavailable but the next ping succeeds, then no call is refused for it', async () => {
    const { state, store } = standIn();
    const log = logger();
    const service = await connected(store, log);
    state.searchFails = unavailable();
    await expect(service.store.search({} as never)).rejects.toMatchObject({ code: 'store_unavailable', message: 'Neo4j cannot be used right now.' });
    await until(() => state.pings === 1);
    state.searchFails = undefined;
    await expect(service.store.search({} as never)).resolves.toMatchObject({ total: 0 });
    expect(warnedDown(log)).toBe(false);
  });

  test('when a call fails otherwise (node_exists), then Neo4j is not pinged', async () => {
    const { state, store } = standIn();
    const service = await connected(store, logger());
    state.searchFails = new DomainError('node_exists', 'The node exists.');
    await expect(service.store.search({} as never)).rejects.toMatchObject({ code: 'node_exists' });
    await new Promise((resolve) => setTimeout(resolve, 50)); // Fixed sleep: a ping that must never come marks no moment.
    expect(state.pings).toBe(0);
  });
});
