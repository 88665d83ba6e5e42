// The ledger of the Neo4j store's upgrades (src/store/neo4j/neo4j-migrations.ts): each upgrade applies at the first
// start that finds it unrecorded, and never again; services starting together apply each once; one that fails stops
// the start and is not recorded. The ledger is read with test-only Cypher.
import neo4j, { type Driver } from 'neo4j-driver';
import { counted } from '../helpers/bolt-round-trips';
import { type Migration, MIGRATIONS, migrate, type MigrationContext } from '../../src/store/neo4j/neo4j-migrations';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { Transactions } from '../../src/store/neo4j/neo4j-transactions';
import { loadStatements, schemaObjects } from '../../src/store/neo4j/statements';
import { forgetMigrations } from '../helpers/neo4j-ledger';
import { neo4jConnectionFromEnv, untilOneIsBlocked } from '../helpers/store';

const connection = neo4jConnectionFromEnv();
let driver: Driver;
const run = async (cypher: string, params: Record<string, unknown> = {}) =>
  (await driver.executeQuery(cypher, params, { database: connection.database })).records.map((r) => r.toObject());
const ledger = async () => await run('MATCH (m:Migration) WHERE m.version > 0 RETURN m.version AS version, m.name AS name ORDER BY version');
const everyUpgrade = MIGRATIONS.map(({ version, name }) => ({ version, name }));

beforeAll(async () => {
  // Integers as JS numbers, as the store's own driver has them: the Transactions below run on this one.
  const auth = connection.password === undefined ? undefined : neo4j.auth.basic(connection.username, connection.password);
  driver = neo4j.driver(connection.uri, auth, { disableLosslessIntegers: true });
  // A database an earlier version left: its data, and no ledger.
  await forgetMigrations(driver, connection.database);
});
afterAll(() => driver.close());

describe('the upgrades of a Neo4j database', () => {
  test('when a store connects to a database without a ledger, then every upgrade applies once, in order, and is recorded; a second start applies none', async () => {
    const first = await Neo4jStore.connect(connection);
    await first.close();
    expect(first.migrated.map(({ version, name }) => ({ version, name }))).toEqual(everyUpgrade);
    expect(await ledger()).toEqual(everyUpgrade);

    let second: Neo4jStore | undefined;
    const start = await counted(async () => (second = await Neo4jStore.connect(connection)));
    await second?.close();
    expect(second?.migrated).toEqual([]);
    expect(await ledger()).toEqual(everyUpgrade);
    // cypher/schema/ is in place and online (one read says so), then the ledger's lock, which reads the ledger.
    expect(start.statements).toEqual(['auto:store.schema-in-place', 'migration.lock']);
  });

  test('when the database lacks an index of cypher/schema/, or holds one that cypher/schema/ drops, then a start applies every statement of it: the index is back and the old one gone', async () => {
    const index = schemaObjects(loadStatements().schema).find((o) => !o.constraint && o.name === 'history_time');
    expect(index).toBeDefined();
    const names = async () => (await run('SHOW INDEXES YIELD name RETURN name')).map((r) => r.name as string);
    for (const change of [
      'DROP INDEX history_time',
      // What an earlier version made, and cypher/schema/history.drop-index-customer.cypher drops.
      'CREATE INDEX history_customer FOR (entry:HistoryEntry) ON (entry.customer)',
    ]) {
      await run(change);
      let store: Neo4jStore | undefined;
      const start = await counted(async () => (store = await Neo4jStore.connect(connection)));
      await store?.close();
      // The check, each statement of cypher/schema/ (auto-commit, as Neo4j runs schema commands), the wait for its
      // indexes, then the ledger's lock.
      const schema = loadStatements().schema.map(() => 'auto:not a statement of cypher/');
      expect(start.statements).toEqual(['auto:store.schema-in-place', ...schema, 'auto:store.await-indexes', 'migration.lock']);
      expect(await names()).toContain('history_time');
      expect(await names()).not.toContain('history_customer');
    }
  });

  test('when two stores connect at once to a database without a ledger, then each upgrade is applied by one of them, once', async () => {
    await forgetMigrations(driver, connection.database);
    const stores = await Promise.all([Neo4jStore.connect(connection), Neo4jStore.connect(connection)]);
    await Promise.all(stores.map((store) => store.close()));
    const applied = stores.flatMap((store) => store.migrated.map(({ version, name }) => ({ version, name })));
    expect(applied.sort((a, b) => a.version - b.version)).toEqual(everyUpgrade);
    expect(await ledger()).toEqual(everyUpgrade);
  });
});

describe('the ledger, with upgrades of its own', () => {
  let transactions: Transactions;
  let context: MigrationContext;
  /** Versions far past the store's, so its own upgrades are recorded and these alone apply. */
  const TEST_VERSION = 1_000_001;

  beforeAll(async () => {
    // The store's own upgrades recorded, as after any start.
    await (await Neo4jStore.connect(connection)).close();
    transactions = new Transactions(driver, connection.database, loadStatements());
    context = { write: (work, options) => transactions.write(work, options), autoCommit: (name, params) => transactions.autoCommit(name, params) };
  });
  afterEach(() => run('MATCH (m:Migration) WHERE m.version >= $from DETACH DELETE m', { from: TEST_VERSION }));

  test('when a second service starts while the first applies an upgrade, then it waits for the lock and finds it applied', async () => {
    let applies = 0;
    let started!: () => void;
    const applying = new Promise<void>((resolve) => (started = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const slow: Migration = {
      version: TEST_VERSION,
      name: 'slow',
      apply: async () => {
        applies += 1;
        started();
        await finished;
        return 7;
      },
    };

    const first = migrate(context, [slow]);
    await applying;
    const second = migrate(context, [slow]);
    // The second waits for the ledger's lock while the first holds it.
    await untilOneIsBlocked(driver, connection.database);
    finish();

    await expect(first).resolves.toEqual([{ version: TEST_VERSION, name: 'slow', changed: 7 }]);
    await expect(second).resolves.toEqual([]);
    expect(applies).toBe(1);
    expect(await run('MATCH (m:Migration {version: $v}) RETURN m.name AS name, m.changed AS changed', { v: TEST_VERSION })).toEqual([
      { name: 'slow', changed: 7 },
    ]);
  });

  test('when an upgrade fails, then the start fails naming it, and neither it nor those before it in that start are recorded', async () => {
    const done: Migration = { version: TEST_VERSION, name: 'fine', apply: () => Promise.resolve(1) };
    const failing: Migration = { version: TEST_VERSION + 1, name: 'broken', apply: () => Promise.reject(new Error('no such thing')) };

    await expect(migrate(context, [done, failing])).rejects.toThrow(`upgrade ${TEST_VERSION + 1} (broken) failed: no such thing`);
    expect(await run('MATCH (m:Migration) WHERE m.version >= $from RETURN count(m) AS n', { from: TEST_VERSION })).toEqual([{ n: 0 }]);

    // The next start applies both again.
    const fixed: Migration = { ...failing, apply: () => Promise.resolve(0) };
    await expect(migrate(context, [done, fixed])).resolves.toEqual([
      { version: TEST_VERSION, name: 'fine', changed: 1 },
      { version: TEST_VERSION + 1, name: 'broken', changed: 0 },
    ]);
  });
});
