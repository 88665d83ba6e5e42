// The Neo4j store as the service runs it (src/store/neo4j/neo4j-startup.ts), without a server: Neo4jStore.connect
// answers a stand-in whose schema calls the test holds and releases. This checks what ConnectingStore decides when
// Neo4j has lost constraints or indexes of cypher/schema/; that Neo4j really loses and regains them is
// test/neo4j/faults.neo4j.test.ts (a server whose data folder is deleted).
import { DomainError } from '../../src/domain/errors';
import { ConnectingStore } from '../../src/store/neo4j/neo4j-startup';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import type { SchemaObject } from '../../src/store/neo4j/statements';

interface Held {
  release: () => void;
  fail: (e: Error) => void;
}

/** A connected store whose missingSchema answers `missing` and whose applySchema waits until the test releases it. */
function standIn() {
  const state = { missing: [] as SchemaObject[], applied: [] as Array<{ awaitIndexes: boolean }>, held: [] as Held[] };
  const store = {
    missingSchema: async () => state.missing,
    applySchema: (options: { awaitIndexes: boolean }) => {
      state.applied.push(options);
      return new Promise<void>((resolve, reject) => state.held.push({ release: resolve, fail: reject }));
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
  return { state, store };
}

const logger = () => ({ info: jest.fn(), warn: jest.fn(), error: jest.fn() });
const connection = { uri: 'bolt://127.0.0.1:1', username: 'neo4j', password: undefined, database: 'neo4j', schemaCheckMs: 3_600_000 };
const constraint = { name: 'idnode_key_unique', constraint: true };
const index = { name: 'history_time', constraint: false };

describe('ConnectingStore, when Neo4j has lost part of cypher/schema/', () => {
  let connecting: ConnectingStore | undefined;
  afterEach(async () => {
    await connecting?.close();
    jest.restoreAllMocks();
  });

  async function connected(store: ReturnType<typeof standIn>['store'], log: ReturnType<typeof logger>): Promise<ConnectingStore> {
    jest.spyOn(Neo4jStore, 'connect').mockResolvedValue(store as unknown as Neo4jStore);
    connecting = new ConnectingStore(connection, log);
    await connecting.started;
    return connecting;
  }

  test('when a constraint is missing, then every call answers 503 store_unavailable until all of cypher/schema/ is applied again and online, and both are logged', async () => {
    const { state, store } = standIn();
    const log = logger();
    const service = await connected(store, log);
    await expect(service.ping()).resolves.toBeUndefined();

    state.missing = [constraint, index];
    const check = service.checkSchema();
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.applied).toEqual([{ awaitIndexes: true }]);
    const refused = await service.ping().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'store_unavailable', message: 'Neo4j is missing constraints of this service; it is applying them again.' });
    await expect(service.search({} as never)).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(log.warn).toHaveBeenCalledWith(expect.stringContaining('applying them again'), { missing: ['idnode_key_unique', 'history_time'], serving: false });

    state.held[0]?.release();
    await check;
    await expect(service.ping()).resolves.toBeUndefined();
    expect(log.info).toHaveBeenCalledWith('applied cypher/schema/ to Neo4j again', { missing: ['idnode_key_unique', 'history_time'] });
  });

  test('when only an index is missing, then it is applied again without waiting for it to come online, and calls are served meanwhile', async () => {
    const { state, store } = standIn();
    const service = await connected(store, logger());
    state.missing = [index];
    const check = service.checkSchema();
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.applied).toEqual([{ awaitIndexes: false }]);
    await expect(service.ping()).resolves.toBeUndefined();
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
    await expect(service.ping()).rejects.toMatchObject({ code: 'store_unavailable' });

    state.missing = [];
    await service.checkSchema();
    await expect(service.ping()).resolves.toBeUndefined();
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
