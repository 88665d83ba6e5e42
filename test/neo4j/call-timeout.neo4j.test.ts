// A store call that runs past NEO4J_CALL_TIMEOUT_MS answers 503 store_unavailable; Neo4j must then end its
// transaction too, so that no work outlives its answer. Made slow here by a lock the test holds: the store's write
// waits on it for as long as the test wants, as a write behind a long transaction would.
import type { Driver, Session, Transaction } from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { neo4jConnectionFromEnv, neo4jDriver, untilOneIsBlocked } from '../helpers/store';
import { id, member, MEMBER, newCustomer } from '../store-contract/contract';

const CALL_TIMEOUT_MS = 1_000;
/** How long the test waits for Neo4j to end the call's transaction: far past the limit, far short of "never". */
const GRACE_MS = 15_000;
const HOLDER = 'call-timeout-test-lock-holder';

describe('a store call past its time limit on Neo4j', () => {
  const connection = neo4jConnectionFromEnv();
  let driver: Driver;
  let store: Neo4jStore;
  let session: Session | undefined;
  let holder: Transaction | undefined;

  beforeAll(async () => {
    driver = neo4jDriver(connection);
    store = await Neo4jStore.connect({ ...connection, callTimeoutMs: CALL_TIMEOUT_MS });
  });
  afterEach(async () => {
    await holder?.rollback().catch(() => undefined);
    await session?.close();
  });
  afterAll(async () => {
    await store.close();
    await driver.close();
  });

  /** The transactions on the server but the lock holder's and the one asking (test-only housekeeping). */
  async function othersRunning(): Promise<string[]> {
    const { records } = await driver.executeQuery(
      `SHOW TRANSACTIONS YIELD transactionId, status, currentQuery, metaData
       WHERE NOT currentQuery STARTS WITH 'SHOW TRANSACTIONS' AND coalesce(metaData.role, '') <> $holder
       RETURN transactionId + ' ' + status AS running`,
      { holder: HOLDER },
      { database: connection.database },
    );
    return records.map((r) => String(r.get('running')));
  }

  async function untilNoneRunning(): Promise<string[]> {
    const deadline = Date.now() + GRACE_MS;
    for (;;) {
      const running = await othersRunning();
      if (running.length === 0 || Date.now() > deadline) return running;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  test('when a write waits on a lock past NEO4J_CALL_TIMEOUT_MS, then it is 503 store_unavailable, and Neo4j ends its transaction while the lock is still held', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(member(c, 'm1'), [id('device', 'd1')]);
    session = driver.session({ database: connection.database });
    holder = await session.beginTransaction({ metadata: { role: HOLDER } });
    await holder.run('MATCH (node:IdNode {customer: $c, keyId: "m1"}) SET node.heldByTest = true', { c });

    const write = store.insertIds(member(c, 'm1'), [id('cookie', 'k1')]);
    await untilOneIsBlocked(driver, connection.database);
    await expect(write).rejects.toMatchObject({ code: 'store_unavailable' });

    // Without a server-side timeout the write would wait on the lock for as long as the holder keeps it.
    expect(await untilNoneRunning()).toEqual([]);
    await holder.rollback();
    // It did not happen, then or later.
    expect(await store.getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
  }, 60_000);
});
