// The Neo4j store's bulk batches on a real Neo4j: lines share transactions, yet a refused line changes nothing.
// Every node write marks its node with the id of its store transaction (lastWrite), so the distinct marks of a
// bulk's nodes count the transactions that committed them. (Outcomes and races of bulk writes are checked on
// both stores by the store contract; the batching logic against a model by neo4j-bulk.unit.test.ts.)
import neo4j, { type Driver } from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import type { NodeWrite } from '../../src/domain/ports/node-writes';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { id, member, MEMBER, newCustomer } from '../store-contract/contract';
import { seeded } from '../helpers/seeded';

describe('Neo4j store, bulk node writes', () => {
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

  /** How many transactions committed the customer's nodes: their distinct lastWrite marks. */
  async function committingTransactions(customer: string): Promise<number> {
    const { records } = await driver.executeQuery(
      'MATCH (n:IdNode {customer: $customer}) RETURN count(DISTINCT n.lastWrite) AS marks',
      { customer },
      { database: connection.database },
    );
    return neo4j.integer.toNumber(records[0]?.get('marks'));
  }

  const creates = (c: string, count: number): NodeWrite[] =>
    Array.from({ length: count }, (_, i) => ({ kind: 'create', node: seeded(member(c, `m${i}`)), ids: [id('device', `d${i}`)] }));

  test('when 250 lines are all applied, then they commit in three transactions (100 lines each), not 250', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    const outcomes = await store.applyNodeWrites(creates(c, 250));
    expect(outcomes.every((o) => o === undefined)).toBe(true);
    expect(await committingTransactions(c)).toBe(3);
  });

  test('when line 50 of 100 is refused, then it changes nothing, and the others commit in two transactions around it', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    const writes = creates(c, 100);
    writes[50] = { kind: 'insert', node: seeded(member(c, 'ghost')), ids: [id('device', 'never')] };
    const outcomes = await store.applyNodeWrites(writes);
    expect(outcomes.map((o, i) => [i, o?.code]).filter(([, code]) => code !== undefined)).toEqual([[50, 'node_not_found']]);
    expect(await committingTransactions(c)).toBe(2);
    expect(await store.getNodeIds(member(c, 'ghost'))).toBeUndefined();
    expect(await store.getNodeIds(member(c, 'm99'))).toEqual([id('device', 'd99'), id('member_id', 'm99')]);
  });

  test('when consecutive deletes (one statement) remove nodes that share IDs, then exactly the Id vertices no node holds any more are deleted', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm0')), [id('device', 'd0'), id('cookie', 'shared')]);
    await store.createNode(seeded(member(c, 'm1')), [id('device', 'd12'), id('cookie', 'shared')]);
    await store.createNode(seeded(member(c, 'm2')), [id('device', 'd12')]);
    await store.createNode(seeded(member(c, 'kept')), [id('cookie', 'shared')]);
    const outcomes = await store.applyNodeWrites(['m0', 'm1', 'm2'].map((k): NodeWrite => ({ kind: 'deleteNode', node: seeded(member(c, k)) })));
    expect(outcomes).toEqual([undefined, undefined, undefined]);
    const { records } = await driver.executeQuery(
      'MATCH (id:Id {customer: $customer}) RETURN id.type + "=" + id.value AS id ORDER BY id',
      { customer: c },
      { database: connection.database },
    );
    expect(records.map((r) => r.get('id'))).toEqual(['cookie=shared', 'member_id=kept']);
  });

  test('when consecutive upserts and ID removals (one statement each step) let go of IDs, then exactly the Id vertices no node holds any more are deleted, and one let go of and held again is there once', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm0')), [id('device', 'd0'), id('cookie', 'shared')]);
    await store.createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('cookie', 'shared')]);
    await store.createNode(seeded(member(c, 'm2')), [id('device', 'd2')]);
    await store.createNode(seeded(member(c, 'kept')), [id('cookie', 'shared')]);
    const outcomes = await store.applyNodeWrites([
      { kind: 'removeId', node: seeded(member(c, 'm0')), id: id('device', 'd0') },
      { kind: 'replace', node: seeded(member(c, 'm1')), where: id('device', 'd1'), set: id('device', 'd0'), upsert: true },
      { kind: 'removeId', node: seeded(member(c, 'm2')), id: id('device', 'd2') },
      { kind: 'removeId', node: seeded(member(c, 'kept')), id: id('cookie', 'shared') },
    ]);
    expect(outcomes).toEqual([undefined, undefined, undefined, undefined]);
    const { records } = await driver.executeQuery(
      'MATCH (id:Id {customer: $customer}) RETURN id.type + "=" + id.value AS id ORDER BY id',
      { customer: c },
      { database: connection.database },
    );
    expect(records.map((r) => r.get('id'))).toEqual(['cookie=shared', 'device=d0', 'member_id=kept', 'member_id=m0', 'member_id=m1', 'member_id=m2']);
    expect(await store.getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'shared'), id('device', 'd0'), id('member_id', 'm1')]);
  });

  test('when create 37 of 100 (one statement) takes a key that exists, then it alone is node_exists, and the others commit in two transactions around it', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm37')), [id('device', 'earlier')]);
    const outcomes = await store.applyNodeWrites(creates(c, 100));
    expect(outcomes.map((o, i) => [i, o?.code]).filter(([, code]) => code !== undefined)).toEqual([[37, 'node_exists']]);
    // The node made before, and the 99 of the batch (were the refusal not attributed, each line would run alone).
    expect(await committingTransactions(c)).toBe(3);
    expect(await store.getNodeIds(member(c, 'm37'))).toEqual([id('device', 'earlier'), id('member_id', 'm37')]);
    expect(await store.getNodeIds(member(c, 'm36'))).toEqual([id('device', 'd36'), id('member_id', 'm36')]);
    expect(await store.getNodeIds(member(c, 'm38'))).toEqual([id('device', 'd38'), id('member_id', 'm38')]);
  });
});
