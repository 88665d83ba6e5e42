// The Neo4j driver's connection pool through the API: with every pooled connection busy (here the only one, held
// by a request waiting for a lock the test's own transaction holds), another request waits
// NEO4J_CONNECTION_ACQUISITION_TIMEOUT_MS and answers 503 store_unavailable; the waiting request still succeeds.
import type { Driver, Session } from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { checkParams, loadStatement } from '../../src/store/neo4j/statements';
import { startApp, type TestApp } from '../helpers/app';
import { buildInsert, buildSearch, expectProblem, id, storedIds, uniqueCustomer } from '../helpers/builders-nodesearch';
import { buildNode, createNode, putSchema } from '../helpers/factories';
import { neo4jConnectionFromEnv, neo4jDriver, untilOneIsBlocked } from '../helpers/store';

// Test-only housekeeping, not a statement of the store: how many transactions wait for a lock right now.
const ACQUISITION_TIMEOUT_MS = 1000;

describe('Neo4j connection pool, through the API', () => {
  const connection = neo4jConnectionFromEnv();
  let app: TestApp;
  let driver: Driver;
  let session: Session;

  beforeAll(async () => {
    const store = await Neo4jStore.connect({ ...connection, maxConnectionPoolSize: 1, connectionAcquisitionTimeoutMs: ACQUISITION_TIMEOUT_MS });
    app = await startApp({ store });
    driver = neo4jDriver(connection);
    session = driver.session({ database: connection.database });
  });
  afterAll(async () => {
    await session.close();
    await driver.close();
    await app.close();
  });

  test('when the only pooled connection stays busy past the acquisition timeout, then another request answers 503 store_unavailable, and the busy one succeeds once it may go on', async () => {
    const customer = uniqueCustomer('pool');
    await putSchema(app, customer);
    await createNode(app, customer, buildNode());

    // The test's own transaction holds the node's write lock, as a store write does (node.lock).
    const lock = loadStatement('node.lock');
    const lockParams = { customer, schema: 'member', keyType: 'member_id', keyId: 'm-1', write: 'pool-test' };
    checkParams(lock, lockParams);
    const holder = await session.beginTransaction();
    await holder.run(lock.text, lockParams);

    // This insert takes the app's only connection and waits for the lock with it.
    const waiting = app.call('POST', `/v1/${customer}/node/_insert`, { body: buildInsert({ ids: [id('cookie', 'c-1')] }) });
    await untilOneIsBlocked(driver, connection.database);

    const started = Date.now();
    const refused = await app.call('POST', `/v1/${customer}/_search`, { body: buildSearch() });
    expectProblem(refused, 503, 'store_unavailable');
    expect(Date.now() - started).toBeGreaterThanOrEqual(ACQUISITION_TIMEOUT_MS - 50);

    await holder.rollback();
    const inserted = await waiting;
    expect(inserted.status).toBe(201);
    expect(await storedIds(app, customer, id('member_id', 'm-1'))).toEqual([id('cookie', 'c-1'), id('device', 'd-1'), id('member_id', 'm-1')]);
    // With the connection free again, the same search answers.
    const answered = await app.call('POST', `/v1/${customer}/_search`, { body: buildSearch() });
    expect(answered.status).toBe(200);
  });
});
