// The store's lock steps on a real Neo4j: writers queued on one vertex's lock must wait their turn, not fail.
// Each writer here is a bare transaction of the store's own statements, without the driver's retries, so a
// deadlock shows as a failure instead of as a second's delay. (With a lock step that reads what it writes,
// `revision = revision + 1`, Neo4j 5.26 failed 16 of 20 such writers with DeadlockDetected.)
import type { Driver } from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { int } from '../../src/store/neo4j/query';
import { checkParams, loadStatement } from '../../src/store/neo4j/statements';
import { buildDraft } from '../helpers/deliveries';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { id, member, MEMBER, newCustomer } from '../store-contract/contract';
import { seeded } from '../helpers/seeded';

/** The limit the store passes node.link-ids for a write that grows a node (NODE_MAX_IDS, its default). */
const NODE_MAX_IDS = 10_000;

const WRITERS = 20;

describe('Neo4j lock steps, with writers queued on one vertex', () => {
  const connection = neo4jConnectionFromEnv();
  let driver: Driver;
  let store: Neo4jStore;

  beforeAll(async () => {
    driver = neo4jDriver(connection);
    store = await Neo4jStore.connect(connection);
  });
  afterAll(async () => {
    await store.close();
    await driver.close();
  });

  type Run = (name: string, params: Record<string, unknown>) => Promise<Array<Record<string, unknown>>>;

  /** Runs `writers` at once, each in one transaction without retries; the codes of those that failed. */
  async function failedCodes(writers: Array<(run: Run) => Promise<void>>): Promise<string[]> {
    const failed: string[] = [];
    await Promise.all(
      writers.map(async (writer) => {
        const session = driver.session({ database: connection.database });
        const tx = await session.beginTransaction();
        const run: Run = async (name, params) => {
          const statement = loadStatement(name);
          checkParams(statement, params);
          return (await tx.run(statement.sent, params)).records.map((r) => r.toObject());
        };
        try {
          await writer(run);
          await tx.commit();
        } catch (e) {
          failed.push(String((e as { code?: unknown }).code));
          await tx.rollback().catch(() => undefined);
        } finally {
          await session.close();
        }
      }),
    );
    return failed;
  }

  test(`when ${WRITERS} writes queue on one node's lock and each links an ID to it, then none fails with a deadlock and every ID is held`, async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
    const key = { customer: c, schema: 'member', keyType: 'member_id', keyId: 'm1' };
    const cookies = Array.from({ length: WRITERS }, (_, i) => `k${String(i).padStart(2, '0')}`);

    const failed = await failedCodes(
      cookies.map((cookie) => async (run) => {
        // As the store sends them: the read after the lock goes out with it.
        const locking = run('node.lock', { ...key, write: `writer-${cookie}` });
        const reading = run('node.held-among', { ...key, ids: [id('cookie', cookie)] });
        const [[locked]] = await Promise.all([locking, reading]);
        await run('node.link-ids', { node: locked?.node, ids: [id('cookie', cookie)], maxIds: int(NODE_MAX_IDS) });
      }),
    );

    expect(failed).toEqual([]);
    expect(await store.getNodeIds(member(c, 'm1'))).toEqual([...cookies.map((k) => id('cookie', k)), id('device', 'd1'), id('member_id', 'm1')]);
  });

  test(`when ${WRITERS} puts queue on one schema's lock and each declares its types again, then none fails with a deadlock`, async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    const versions = Array.from({ length: WRITERS }, (_, i) => [...MEMBER.idTypes, { type: `extra${i}`, secure: false }]);

    const failed = await failedCodes(
      versions.map((idTypes, i) => async (run) => {
        const [locked] = await run('schema.lock', { customer: c, schemaId: 'member', write: `put-${i}` });
        expect(locked).toEqual({ created: false });
        const byName = [...idTypes].sort((a, b) => (a.type < b.type ? -1 : 1));
        await run('idtype.lock', { customer: c, idTypes: byName, write: `put-${i}` });
        await run('schema.declare', { customer: c, schemaId: 'member', idTypes });
        await run('idtype.delete-orphans', { customer: c });
      }),
    );

    expect(failed).toEqual([]);
    const stored = await store.getSchema(c, 'member');
    expect(versions).toContainEqual(stored?.idTypes);
  });

  test('when an impression holds its transaction open, then an impression of another delivery of the same customer, which has no settings, is counted meanwhile', async () => {
    const c = newCustomer();
    const [first, second] = [await store.createDelivery(c, buildDraft()), await store.createDelivery(c, buildDraft())];
    const impression = (deliveryId: number, value: string) => ({
      impressions: [
        {
          index: int(0),
          customer: c,
          deliveryId: int(deliveryId),
          key: null,
          write: `impression-${deliveryId}`,
          type: 'device',
          value,
          unlinkedTypes: [],
          day: '2026-06-01',
          platform: 'ios',
          receivedAt: '2026-06-01T00:00:00.000Z',
          mapiToken: null,
          keptPolicy: null,
        },
      ],
      maxNodes: int(100),
      maxIds: int(100),
    });
    const statement = loadStatement('impression.count');
    const open = driver.session({ database: connection.database });
    const held = await open.beginTransaction();
    try {
      await held.run(statement.sent, impression(first?.deliveryId ?? 0, 'd1'));
      // Neo4j ends the second at its timeout if it waits for a lock the first holds.
      const other = driver.session({ database: connection.database });
      try {
        const tx = await other.beginTransaction({ timeout: 20_000 });
        const [row] = (await tx.run(statement.sent, impression(second?.deliveryId ?? 0, 'd2'))).records.map((r) => r.toObject());
        await tx.commit();
        expect((row?.answerCounts as unknown[]).map(Number)).toEqual([1, 1, 1]);
      } finally {
        await other.close();
      }
    } finally {
      await held.rollback();
      await open.close();
    }
    expect((await store.getDelivery(c, second?.deliveryId ?? 0))?.condition.deliveryCount).toBe(1);
    expect((await store.getDelivery(c, first?.deliveryId ?? 0))?.condition.deliveryCount).toBe(0);
  });
});
