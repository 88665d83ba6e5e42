// A store call that runs past NEO4J_CALL_TIMEOUT_MS answers 503 store_unavailable; Neo4j must then end its
// transaction too, so that no work outlives its answer. Made slow here by a lock the test holds: the store's write
// waits on it for as long as the test wants, as a write behind a long transaction would.
import type { Driver, Session, Transaction } from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { waitFor } from '../helpers/settling';
import { neo4jConnectionFromEnv, neo4jDriver, untilOneIsBlocked } from '../helpers/store';
import { id, member, MEMBER, newCustomer } from '../store-contract/contract';
import { seeded } from '../helpers/seeded';

const CALL_TIMEOUT_MS = 1_000;
/** How long the test waits for Neo4j to end the call's transaction: far past the limit, far short of "never". */
const GRACE_MS = 15_000;
const HOLDER = 'call-timeout-test-lock-holder';

describe('a store call past its time limit on Neo4j', () => {
  const connection = neo4jConnectionFromEnv();
  let driver: Driver;
  let store: Neo4jStore;
  /** Makes what a test needs, with the default limit: a first statement on a busy machine may take longer than the test's. */
  let setup: Neo4jStore;
  let session: Session | undefined;
  let holder: Transaction | undefined;

  beforeAll(async () => {
    driver = neo4jDriver(connection);
    store = await Neo4jStore.connect({ ...connection, callTimeoutMs: CALL_TIMEOUT_MS });
    setup = await Neo4jStore.connect(connection);
  });
  afterEach(async () => {
    await holder?.rollback().catch(() => undefined);
    await session?.close();
  });
  afterAll(async () => {
    await store.close();
    await setup.close();
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

  /** A new customer whose node m1 (holding d1) the test's own open transaction keeps locked. */
  async function customerWithLockedNode(): Promise<string> {
    const c = newCustomer();
    await setup.putSchema(c, MEMBER);
    await setup.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
    session = driver.session({ database: connection.database });
    holder = await session.beginTransaction({ metadata: { role: HOLDER } });
    await holder.run('MATCH (node:IdNode {customer: $c, keyId: "m1"}) SET node.heldByTest = true', { c });
    return c;
  }

  async function untilNoneRunning(): Promise<string[]> {
    let running: string[] = [];
    await waitFor(
      () => `no other transaction running (still: ${running.join(', ')})`,
      async () => {
        running = await othersRunning();
        return running.length === 0;
      },
      { timeoutMs: GRACE_MS, everyMs: 100 },
    );
    return running;
  }

  test('when a write waits on a lock past NEO4J_CALL_TIMEOUT_MS, then it is 503 store_unavailable, and Neo4j ends its transaction while the lock is still held', async () => {
    const c = await customerWithLockedNode();

    const write = store.insertIds(seeded(member(c, 'm1')), [id('cookie', 'k1')]);
    await untilOneIsBlocked(driver, connection.database);
    await expect(write).rejects.toMatchObject({ code: 'store_unavailable' });

    // Without a server-side timeout the write would wait on the lock for as long as the holder keeps it.
    expect(await untilNoneRunning()).toEqual([]);
    await holder?.rollback();
    // It did not happen, then or later.
    expect(await setup.getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
  }, 60_000);

  test('when writes wait behind writes that wait on a lock, then they too are 503 within NEO4J_CALL_TIMEOUT_MS of their arrival, their wait included', async () => {
    const c = await customerWithLockedNode();

    // The first goes alone and waits on the lock; the others, of its customer, wait for it.
    const started = Date.now();
    const writes = Array.from({ length: 4 }, (_, i) =>
      store.insertIds(seeded(member(c, 'm1')), [id('cookie', `k${i}`)]).then(
        () => ({ answeredAfterMs: Date.now() - started }),
        (error: unknown) => ({ error, answeredAfterMs: Date.now() - started }),
      ),
    );
    for (const answer of await Promise.all(writes)) {
      expect(answer).toMatchObject({ error: { code: 'store_unavailable' } });
      // A shared transaction of its own limit would answer after two limits at least.
      expect(answer.answeredAfterMs).toBeLessThan(2 * CALL_TIMEOUT_MS);
    }
    expect(await untilNoneRunning()).toEqual([]);
    await holder?.rollback();
    expect(await setup.getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
  }, 60_000);

  // A service that stops closes its store with calls under way (a stream's read, a write behind a lock): they must
  // answer then, not at their time limit, or they keep the process alive that long.
  test('when the store closes while a write waits on a lock, then the write is 503 store_unavailable at once, long before its time limit, and did not happen', async () => {
    const c = await customerWithLockedNode();
    const closing = await Neo4jStore.connect({ ...connection, callTimeoutMs: 10 * 60_000 });

    const write = closing.insertIds(seeded(member(c, 'm1')), [id('cookie', 'k1')]).then(
      () => undefined,
      (error: unknown) => error,
    );
    await untilOneIsBlocked(driver, connection.database);
    await closing.close();
    expect(await write).toMatchObject({ code: 'store_unavailable' });

    expect(await untilNoneRunning()).toEqual([]);
    await holder?.rollback();
    expect(await setup.getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
  }, 60_000);
});
