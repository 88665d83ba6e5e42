// Runs the store contract (identity and deliveries) against Neo4j: `npm run test:neo4j` (jest.neo4j.config.js).
// Plus what only the Neo4j store has: the planner's choice for the traversals, and the graph left behind.
import neo4j, { type Driver } from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { loadStatement } from '../../src/store/neo4j/statements';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { describeStoreContract, id, member, MEMBER, newCustomer } from './contract';
import { describeDeliveryContract } from './deliveries-contract';

const openNeo4j = () => Neo4jStore.connect(neo4jConnectionFromEnv());

describeStoreContract('neo4j', openNeo4j);
describeDeliveryContract('neo4j', openNeo4j);

describe('Neo4j store specifics', () => {
  const connection = neo4jConnectionFromEnv();
  let driver: Driver;
  let store: Neo4jStore;
  beforeAll(async () => {
    store = await openNeo4j();
    driver = neo4jDriver(connection);
  });
  afterAll(async () => {
    await store.close();
    await driver.close();
  });

  /** The operator names of the plan Neo4j makes for a statement file (EXPLAIN: planned, not run). */
  async function operators(name: string, params: Record<string, unknown>): Promise<string[]> {
    const { summary } = await driver.executeQuery(`EXPLAIN\n${loadStatement(name).text}`, params, { database: connection.database });
    const names: string[] = [];
    const walk = (plan: { operatorType: string; children: unknown[] } | false) => {
      if (!plan) return;
      names.push(plan.operatorType);
      for (const child of plan.children) walk(child as { operatorType: string; children: unknown[] });
    };
    walk(summary.plan as { operatorType: string; children: unknown[] } | false);
    return names;
  }

  const gather = { maxNodes: neo4j.int(10), maxIds: neo4j.int(50), excluded: [], havingType: null, hiddenTypes: [] };
  test.each([
    ['search.traverse-all', { source: 'x', ...gather }],
    ['search.traverse-one', { starts: ['x'], ...gather }],
    ['search.traverse-one-from-id', { source: 'x', ...gather }],
    ['analyst/component.from-id', { customer: 'c', type: 't', value: 'v' }],
  ])('when %s is planned, then it is a pruning breadth-first var-length expand', async (name, params) => {
    const plan = await operators(name, params);
    expect(plan.some((op) => op.startsWith('VarLengthExpand(Pruning,BFS'))).toBe(true);
  });

  // A where search restricted to a schema hands every holder of the ID (hundreds for a hot ID) to the traversal.
  // Given as `elementId(n) IN $list`, Neo4j 5.26 planned such a list as a scan of every IdNode, whose cost grows
  // with the database, not with the search.
  const manyElementIds = Array.from({ length: 2_000 }, (_, i) => `4:00000000-0000-0000-0000-000000000000:${i}`);
  test.each([
    ['search.traverse-one', { starts: manyElementIds, ...gather, excluded: manyElementIds }],
  ])('when %s is planned for 2,000 element ids, then it seeks them, without scanning all nodes', async (name, params) => {
    const plan = await operators(name, params);
    expect(plan.some((op) => op.startsWith('NodeByElementIdSeek'))).toBe(true);
    expect(plan.filter((op) => /Scan/.test(op))).toEqual([]);
  });

  test('when no node holds an ID any more, then its Id vertex is gone, in the same transaction', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(member(c, 'm1'), [id('device', 'd1'), id('cookie', 'k1')]);
    await store.createNode(member(c, 'm2'), [id('device', 'd1')]);
    const idVertices = async () =>
      (
        await driver.executeQuery('MATCH (i:Id {customer: $c}) RETURN i.type + "=" + i.value AS id ORDER BY id', { c }, { database: connection.database })
      ).records.map((r) => r.get('id') as string);
    expect(await idVertices()).toEqual(['cookie=k1', 'device=d1', 'member_id=m1', 'member_id=m2']);
    await store.removeId(member(c, 'm1'), id('cookie', 'k1'));
    await store.deleteNode(member(c, 'm2'));
    expect(await idVertices()).toEqual(['device=d1', 'member_id=m1']);
    await store.rekey(member(c, 'm1'), 'm9');
    expect(await idVertices()).toEqual(['device=d1', 'member_id=m9']);
  });

  test('when a node is created, then it points to its schema vertex with IN_SCHEMA (what keeps the schema from going)', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(member(c, 'm1'), [id('device', 'd1')]);
    await store.createNode(member(c, 'm2'), []);
    const { records } = await driver.executeQuery(
      'MATCH (n:IdNode {customer: $c})-[:IN_SCHEMA]->(s:Schema) RETURN n.keyId AS node, s.schemaId AS schema ORDER BY node',
      { c },
      { database: connection.database },
    );
    expect(records.map((r) => [r.get('node'), r.get('schema')])).toEqual([
      ['m1', 'member'],
      ['m2', 'member'],
    ]);
  });
});
