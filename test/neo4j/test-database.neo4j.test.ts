// The Neo4j suites delete only a database that is theirs (test-database.js): one holding their marker node, or
// nothing. Pointed at a database with someone's data, the run stops in one line before anything is deleted, and
// so does the emptying between test files. Test-only Cypher, not statements of the store.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Driver } from 'neo4j-driver';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { claimTestDatabase, emptyTestDatabase, ForeignDatabaseError, MARKER_LABEL } from './test-database';

const ROOT = path.resolve(__dirname, '..', '..');
const connection = neo4jConnectionFromEnv();
const where = `database ${connection.database} at ${connection.uri}`;
let driver: Driver;
const count = async (cypher: string) => Number((await driver.executeQuery(cypher, {}, { database: connection.database })).records[0]?.get('n'));
const foreignNodes = () => count("MATCH (n:SomeonesData {name: 'keep me'}) RETURN count(n) AS n");
const markers = () => count(`MATCH (m:${MARKER_LABEL}) RETURN count(m) AS n`);

/** The database as someone else's: one node of theirs and nothing else (not the store's upgrade ledger), no marker. */
async function makeForeign(): Promise<void> {
  await driver.executeQuery('MATCH (n) DETACH DELETE n', {}, { database: connection.database });
  await driver.executeQuery("CREATE (:SomeonesData {name: 'keep me'})", {}, { database: connection.database });
}

beforeAll(() => {
  driver = neo4jDriver(connection);
});
afterEach(async () => {
  // The next test file's setup needs the database to be the suites' own again.
  await driver.executeQuery('MATCH (n:SomeonesData) DETACH DELETE n', {}, { database: connection.database });
  await claimTestDatabase(driver, connection.database, where);
});
afterAll(() => driver.close());

describe('the database of the Neo4j suites', () => {
  test('when the setup of a run meets a database with nodes and no marker, then it exits 1 with one line saying so, and the nodes are still there; NEO4J_URI is ignored', async () => {
    await makeForeign();
    const run = spawnSync(process.execPath, ['-e', "require('./test/neo4j/global-setup.js')()"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        NEO4J_TEST_URI: connection.uri,
        NEO4J_TEST_USERNAME: connection.username,
        NEO4J_TEST_PASSWORD: connection.password ?? '',
        NEO4J_TEST_DATABASE: connection.database,
        NEO4J_URI: 'bolt://production.invalid:7687',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `Neo4j suites cannot run: ${where} holds 1 node(s) and no (:${MARKER_LABEL}) node: these suites did not create its data, so they refuse it and deleted nothing. Point NEO4J_TEST_URI at an empty database whose data may be deleted.`,
    ]);
    expect(run.stdout).toContain('ignoring NEO4J_URI');
    expect(await foreignNodes()).toBe(1);
    expect(await markers()).toBe(0);
  });

  test('when a test file empties a database with nodes and no marker, then it is refused and the nodes are still there', async () => {
    await makeForeign();
    await expect(emptyTestDatabase(driver, connection.database, where)).rejects.toBeInstanceOf(ForeignDatabaseError);
    expect(await foreignNodes()).toBe(1);
  });

  test('when an empty database is claimed, then it gets the marker, and emptying it deletes everything but the marker', async () => {
    await driver.executeQuery('MATCH (n) DETACH DELETE n', {}, { database: connection.database });
    await claimTestDatabase(driver, connection.database, where);
    expect(await markers()).toBe(1);
    await driver.executeQuery("CREATE (:SomeonesData {name: 'keep me'})", {}, { database: connection.database });
    await emptyTestDatabase(driver, connection.database, where);
    expect(await foreignNodes()).toBe(0);
    expect(await markers()).toBe(1);
  });
});
