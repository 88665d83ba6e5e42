// Runs the store contract against Neo4j: `npm run test:neo4j` (jest.neo4j.config.js). The other contracts run in
// neo4j-deliveries.neo4j.test.ts and neo4j-history.neo4j.test.ts, files of their own so that the jest workers share them.
// Plus what only the Neo4j store has: the planner's choice for the traversals, and the graph left behind.
import neo4j, { type Driver } from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { loadStatement, type StatementName } from '../../src/store/neo4j/statements';
import { whyInGraph } from '../../src/store/neo4j/neo4j-why';
import type { Query } from '../../src/store/neo4j/query';
import type { WhyQuery, WhyStart } from '../../src/domain/why';
import { asChecked } from './contract';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { describeStoreContract, id, member, MEMBER, newCustomer } from './contract';
import { seeded } from '../helpers/seeded';

const openNeo4j = () => Neo4jStore.connect(neo4jConnectionFromEnv());

describeStoreContract('neo4j', openNeo4j);

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
    walk(summary.plan);
    return names;
  }

  /** Each operator of the plan of a statement file, with its details (EXPLAIN, or PROFILE with the rows it produced). */
  async function planOf(name: string, params: Record<string, unknown>, mode: 'EXPLAIN' | 'PROFILE' = 'EXPLAIN') {
    const { summary } = await driver.executeQuery(`${mode}\n${loadStatement(name).text}`, params, { database: connection.database });
    type Plan = { operatorType: string; arguments: Record<string, unknown>; rows?: number; children: Plan[] };
    const found: Array<{ operator: string; details: string; rows: number }> = [];
    const walk = (plan: Plan) => {
      found.push({
        operator: plan.operatorType,
        details: typeof plan.arguments.Details === 'string' ? plan.arguments.Details : '',
        rows: Number(plan.rows ?? 0),
      });
      plan.children.forEach(walk);
    };
    walk((mode === 'PROFILE' ? summary.profile : summary.plan) as unknown as Plan);
    return found;
  }

  const gather = { maxNodes: neo4j.int(10), maxIds: neo4j.int(50), excluded: [], havingType: null, hiddenTypes: [], unlinkedTypes: [], answerBytes: null };
  // search.one and search.all read the unlinked and hidden types from the customer's policy, in the statement.
  const byKey = {
    policies: [{ index: neo4j.int(0), customer: 'c', schema: 's' }],
    searches: [
      {
        index: neo4j.int(0),
        customer: 'c',
        schema: 's',
        keyType: 't',
        keyId: 'k',
        whereType: null,
        whereValue: null,
        exclude: false,
        authenticated: false,
        havingType: null,
        answerBytes: null,
        policyIndex: neo4j.int(0),
        sendsPolicy: true,
      },
    ],
    maxNodes: gather.maxNodes,
    maxIds: gather.maxIds,
  };
  // A search from the holders of an ID: from every holder (no schema), or from those of one schema.
  const byWhere = (schema: string | null) => ({
    ...byKey,
    policies: [{ index: neo4j.int(0), customer: 'c', schema }],
    searches: [{ ...byKey.searches[0], schema, keyType: null, keyId: null, whereType: 't', whereValue: 'v' }],
  });
  test.each([
    ['search.traverse-all', { source: 'x', holdersSchema: null, ...gather }],
    ['search.traverse-one', { starts: ['x'], ...gather }],
    ['search.traverse-one-from-id', { source: 'x', ...gather }],
    ['search.one', byKey],
    ['search.one', byWhere(null)],
    ['search.all', byKey],
    ['search.all', byWhere('s')],
    ['analyst/component.from-id', { customer: 'c', type: 't', value: 'v' }],
    [
      'person.counts',
      { customer: 'c', type: 't', value: 'v', unlinkedTypes: [], maxNodes: gather.maxNodes, maxIds: gather.maxIds, day: 'd', deliveryId: null },
    ],
    [
      'person.counts-many',
      {
        people: [{ index: neo4j.int(0), customer: 'c', type: 't', value: 'v', unlinkedTypes: ['ip'], day: '2026-06-01' }],
        maxNodes: gather.maxNodes,
        maxIds: gather.maxIds,
      },
    ],
  ])('when %s is planned, then it is a pruning breadth-first var-length expand', async (name, params) => {
    const plan = await operators(name, params);
    expect(plan.some((op) => op.startsWith('VarLengthExpand(Pruning,BFS'))).toBe(true);
    // search.one has a traversal from the start nodes and one from an ID: neither may be another kind of expand.
    expect(plan.filter((op) => op.startsWith('VarLengthExpand') && !op.startsWith('VarLengthExpand(Pruning,BFS'))).toEqual([]);
  });

  // Searches that wait go together, several rows of searches in one statement; each start must still be a seek.
  // (On the bench's graph the planner, without the index hint, scanned every keyed node once a statement and
  // joined; this near-empty database cannot show that choice, so test/cypher also checks that the hint is there.)
  test.each(['search.one', 'search.all'])('when %s is planned for several searches, then each start is an index seek, never a scan', async (name) => {
    const keyed = ['k1', 'k2', 'k3'].map((keyId, i) => ({ ...byKey.searches[0], index: neo4j.int(i), keyId, sendsPolicy: i === 0 }));
    const fromIds = ['v1', 'v2', 'v3'].map((whereValue, i) => ({ ...byWhere('s').searches[0], index: neo4j.int(3 + i), whereValue, sendsPolicy: false }));
    const plan = await operators(name, { ...byKey, searches: [...keyed, ...fromIds] });
    expect(plan.filter((op) => op.includes('Scan'))).toEqual([]);
    expect(plan.some((op) => op.startsWith('NodeUniqueIndexSeek') || op.startsWith('NodeIndexSeek'))).toBe(true);
  });

  // _why: the shortest chains must come from Neo4j's bidirectional breadth-first shortest-path search, with the
  // links:false and holders' schema predicates inside it (a fallback to an exhaustive expand, or a Filter after it,
  // would walk every path), and each step's count of what lies around the ends from a pruning breadth-first expand.
  test('when why.shortest is planned, then each step is the bidirectional shortest-path search after a pruning count, refusing unlinked Id vertices itself', async () => {
    const start = (side: string) => ({
      [`${side}Schema`]: 's',
      [`${side}KeyType`]: null,
      [`${side}KeyId`]: null,
      [`${side}WhereType`]: 't',
      [`${side}WhereValue`]: 'v',
    });
    const plan = await planOf('why.shortest', {
      customer: 'c',
      ...start('from'),
      ...start('to'),
      unlinkedTypes: ['ip'],
      maxStarts: neo4j.int(10),
      maxNodes: neo4j.int(9),
      maxIds: neo4j.int(9),
      maxChains: neo4j.int(5),
    });
    const shortest = plan.filter((op) => op.operator.startsWith('ShortestPath'));
    const counts = plan.filter((op) => op.operator.startsWith('VarLengthExpand'));
    expect(shortest).toHaveLength(4);
    expect(counts).toHaveLength(4);
    for (const op of shortest) expect(op.details).toMatch(/unlinkedTypes.*aHolders.*bHolders/s);
    for (const op of counts)
      expect(op).toMatchObject({ operator: expect.stringMatching(/^VarLengthExpand\(Pruning,BFS/), details: expect.stringMatching(/unlinkedTypes/) });
    expect(plan.some((op) => op.operator.includes('AntiConditionalApply'))).toBe(false);
    // The starts are found by index seeks: a scan reads every node or ID of the database on each request.
    expect(plan.filter((op) => /Scan/.test(op.operator))).toEqual([]);
  });

  // _why past maxChains: the exact search (src/domain/why-chain.ts) must answer what why.shortest's chains give,
  // from a key, from an ID several nodes hold, with and without a schema, and around an unlinked ID.
  test('when why.shortest reads maxChains chains, then the exact search answers the same chain, from every kind of start', async () => {
    const c = newCustomer();
    const schema = { ...MEMBER, idTypes: [...MEMBER.idTypes, { type: 'tag', secure: false, links: false }] };
    await store.putSchema(c, schema);
    const nodes: Array<[string, Array<ReturnType<typeof id>>]> = [
      ['p', [id('cookie', 'k2'), id('cookie', 'k1'), id('device', 'd1')]],
      ['q2', [id('cookie', 'k1'), id('cookie', 'k4')]],
      ['q0', [id('cookie', 'k2'), id('cookie', 'k3')]],
      ['q1', [id('cookie', 'k1'), id('cookie', 'k3')]],
      ['r', [id('cookie', 'k3'), id('cookie', 'k4'), id('device', 'd2')]],
      ['s', [id('device', 'd2'), id('tag', 't')]],
      ['u', [id('tag', 't'), id('device', 'd1')]],
    ];
    for (const [key, ids] of nodes) await store.createNode(seeded(asChecked(member(c, key), schema, ids)), ids);
    const ran: string[] = [];
    const q: Query = async <T>(name: StatementName, params: Record<string, unknown> = {}) => {
      ran.push(name);
      const { records } = await driver.executeQuery(loadStatement(name).text, params, { database: connection.database });
      return records.map((r) => Object.fromEntries(Object.entries(r.toObject()).map(([k, v]) => [k, neo4j.isInt(v) ? v.toNumber() : v])) as T);
    };
    const byKey = (key: string): WhyStart => ({ key: { schemaId: 'member', key: id('member_id', key) } });
    const pairs: Array<[WhyStart, WhyStart]> = [
      [byKey('p'), byKey('r')],
      [byKey('r'), byKey('p')],
      [{ where: { id: id('device', 'd2') } }, byKey('p')],
      [{ where: { schemaId: 'member', id: id('cookie', 'k3') } }, byKey('p')],
      [byKey('s'), byKey('u')],
      [byKey('q2'), { where: { id: id('device', 'd1') } }],
    ];
    for (const [from, to] of pairs) {
      const query: WhyQuery = { customerId: c, from, to, unlinkedTypes: ['tag'], maxNodes: 100, maxIds: 100 };
      const fast = await whyInGraph(q, query);
      ran.length = 0;
      const exact = await whyInGraph(q, query, 1);
      expect({ from, to, exact }).toEqual({ from, to, exact: fast });
      expect(fast).toMatchObject({ chain: expect.objectContaining({ vias: expect.any(Array) }) });
      expect(ran).toContain('why.labels');
    }
  });

  // links:false: the vertex predicate that keeps IDs of such types out of every path must be solved inside the pruning
  // expand itself; as a Filter after it, the expand would still step through a hot ID to all its holders.
  test.each([
    ['search.traverse-all', { source: 'x', holdersSchema: 'member', ...gather, unlinkedTypes: ['ip'] }],
    ['search.traverse-one', { starts: ['x'], ...gather, unlinkedTypes: ['ip', 'country'] }],
    ['search.traverse-one-from-id', { source: 'x', ...gather, unlinkedTypes: ['ip'] }],
    ['search.one', byKey],
    ['search.one', byWhere(null)],
    ['search.all', byKey],
    ['search.all', byWhere('s')],
    [
      'person.counts-many',
      {
        people: [{ index: neo4j.int(0), customer: 'c', type: 't', value: 'v', unlinkedTypes: ['ip'], day: '2026-06-01' }],
        maxNodes: gather.maxNodes,
        maxIds: gather.maxIds,
      },
    ],
  ])('when %s is planned with unlinked types, then the pruning breadth-first expand itself refuses their Id vertices', async (name, params) => {
    const expands = (await planOf(name, params)).filter((op) => op.operator.startsWith('VarLengthExpand(Pruning,BFS'));
    expect(expands.length).toBeGreaterThan(0);
    for (const expand of expands) expect(expand.details).toMatch(/unlinkedTypes/);
  });

  test('when 300 nodes share an ID of a links:false type, then a search from one of them reaches its own component only', async () => {
    const c = newCustomer();
    const withIp = { ...MEMBER, idTypes: [...MEMBER.idTypes, { type: 'ip', secure: false, links: false }] };
    await store.putSchema(c, withIp);
    await store.applyNodeWrites(
      Array.from({ length: 300 }, (_, i) => ({
        kind: 'create' as const,
        node: seeded(member(c, `m${i}`)),
        ids: [id('ip', '10.0.0.1'), id('cookie', `k${i}`)],
      })),
    );
    const { records } = await driver.executeQuery(
      'MATCH (n:IdNode {customer: $c, keyId: "m0"}) RETURN elementId(n) AS node',
      { c },
      { database: connection.database },
    );
    const source = records[0]?.get('node') as string;
    const reached = async (unlinkedTypes: string[]) => {
      const profiled = await planOf(
        'search.traverse-all',
        { ...gather, maxNodes: neo4j.int(10_000), maxIds: neo4j.int(50_000), source, holdersSchema: null, unlinkedTypes },
        'PROFILE',
      );
      return profiled.find((op) => op.operator.startsWith('VarLengthExpand(Pruning,BFS'))?.rows;
    };
    // The node and its key and cookie; the shared ip is refused, so none of the 299 other holders is reached.
    expect(await reached(['ip'])).toBe(3);
    // Without the option the same traversal goes through the ip to every holder: what the predicate saves.
    expect(await reached([])).toBeGreaterThan(600);
  });

  // The explorer's graph: the search's pruning expands, twice each (step ALL: the second, for the distances, only
  // within the bounds; the answer is the union of both: cypher/graph.all.cypher), the links:false and holdersSchema
  // predicates inlined, the LIMIT stopping the first, with its start found through a unique index.
  const graphAsked = (overrides: Record<string, unknown>) => ({
    customer: 'c',
    schema: 'member',
    keyType: 'member_id',
    keyId: 'm1',
    whereType: null,
    whereValue: null,
    authenticated: false,
    unlinkedTypes: ['ip'],
    hiddenTypes: null,
    maxNodes: neo4j.int(10),
    maxIds: neo4j.int(50),
    answerBytes: neo4j.int(65_536),
    ...overrides,
  });
  const graphFromWhere = { keyType: null, keyId: null, whereType: 'ip', whereValue: '10.0.0.1' };
  test.each([
    ['graph.all from a key', 'graph.all', graphAsked({}), 2],
    ['graph.all from an ID of a schema', 'graph.all', graphAsked(graphFromWhere), 2],
    ['graph.one from a key', 'graph.one', graphAsked({}), 4],
    ['graph.one from an ID', 'graph.one', graphAsked({ ...graphFromWhere, schema: null }), 4],
  ])(
    'when %s is planned with unlinked types, then its start is an index seek and each traversal a pruning breadth-first expand that itself refuses their Id vertices',
    async (_name, statement, params, traversals) => {
      const plan = await planOf(statement, params);
      const expands = plan.filter((op) => op.operator.startsWith('VarLengthExpand'));
      expect(expands.map((op) => op.operator.startsWith('VarLengthExpand(Pruning,BFS'))).toEqual(Array.from({ length: traversals }, () => true));
      for (const expand of expands) expect(expand.details).toMatch(/unlinkedTypes/);
      if (statement === 'graph.all') for (const expand of expands) expect(expand.details).toMatch(/holdersSchema/);
      expect(plan.some((op) => /IndexSeek/.test(op.operator))).toBe(true);
      expect(plan.filter((op) => /Scan/.test(op.operator)).map((op) => op.operator)).toEqual([]);
    },
  );

  test('when a component holds 2,000 nodes and the graph may visit 50, then its first traversal stops at its LIMIT and the second does not run', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.applyNodeWrites(
      Array.from({ length: 2_000 }, (_, i) => ({ kind: 'create' as const, node: seeded(member(c, `m${i}`)), ids: [id('device', 'hub')] })),
    );
    const profiled = await planOf(
      'graph.all',
      graphAsked({ customer: c, keyId: 'm0', unlinkedTypes: [], maxNodes: neo4j.int(50), maxIds: neo4j.int(50) }),
      'PROFILE',
    );
    const rows = profiled.filter((op) => op.operator.startsWith('VarLengthExpand(Pruning,BFS')).map((op) => op.rows);
    // 101 vertices proved the component too large (without the LIMIT it would have reached 4,001), and the
    // traversal for the distances did not run.
    expect(rows).toHaveLength(2);
    expect(rows[0]).toBeLessThanOrEqual(200);
    expect(rows[1]).toBe(0);
    await expect(
      store.graphWithTypes({
        customerId: c,
        key: { schemaId: 'member', key: id('member_id', 'm0') },
        step: 'ALL',
        exclude: false,
        hiddenTypes: [],
        unlinkedTypes: [],
        maxNodes: 50,
        maxIds: 50,
        answerNodes: 10,
      }),
    ).rejects.toMatchObject({ code: 'component_too_large' });
  });

  // A where search restricted to a schema hands every holder of the ID (hundreds for a hot ID) to the traversal.
  // Given as `elementId(n) IN $list`, Neo4j 5.26 planned such a list as a scan of every IdNode, whose cost grows
  // with the database, not with the search.
  const manyElementIds = Array.from({ length: 2_000 }, (_, i) => `4:00000000-0000-0000-0000-000000000000:${i}`);
  test.each([
    ['search.traverse-one', { starts: manyElementIds, ...gather, excluded: manyElementIds }],
    ['why.ids-of-nodes', { customer: 'c', nodes: manyElementIds, unlinkedTypes: ['ip'] }],
    ['why.nodes-of-ids', { customer: 'c', ids: manyElementIds }],
    ['why.labels', { customer: 'c', nodes: manyElementIds, ids: manyElementIds }],
  ])('when %s is planned for 2,000 element ids, then it seeks them, without scanning all nodes', async (name, params) => {
    const plan = await operators(name, params);
    expect(plan.some((op) => op.startsWith('NodeByElementIdSeek'))).toBe(true);
    expect(plan.filter((op) => /Scan/.test(op))).toEqual([]);
  });

  // Unhinted, Neo4j 5.26 planned a bulk batch's key lookup as a scan of the (customer, schema) index for every line:
  // a load slowed as the graph grew.
  test("when node.create-many is planned, then each line's key is one seek of its unique index, without a scan", async () => {
    const nodes = [0, 1].map((line) => ({ line: neo4j.int(line), schema: 'member', keyType: 'member_id', keyId: `m${line}`, ids: [id('device', `d${line}`)] }));
    const plan = await operators('node.create-many', { customer: 'c', nodes, write: 'w' });
    expect(plan.some((op) => op.startsWith('NodeUniqueIndexSeek'))).toBe(true);
    expect(plan.filter((op) => /Scan/.test(op))).toEqual([]);
  });

  test('when import.nodes is planned, then each node finds its schema and each ID its vertex by one seek of a unique index, without a scan', async () => {
    const nodes = [0, 1].map((n) => ({ schema: 'member', keyType: 'member_id', keyId: `m${n}` }));
    const links = [0, 1].map((n) => ({ node: neo4j.int(n), type: 'device', id: `d${n}` }));
    const plan = await operators('import.nodes', { customer: 'c', nodes, links, write: 'w' });
    expect(plan.filter((op) => op.startsWith('NodeUniqueIndexSeek'))).toHaveLength(2);
    expect(plan.filter((op) => /Scan/.test(op))).toEqual([]);
  });

  test('when no node holds an ID any more, then its Id vertex is gone, in the same transaction', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('cookie', 'k1')]);
    await store.createNode(seeded(member(c, 'm2')), [id('device', 'd1')]);
    const idVertices = async () =>
      (
        await driver.executeQuery('MATCH (i:Id {customer: $c}) RETURN i.type + "=" + i.value AS id ORDER BY id', { c }, { database: connection.database })
      ).records.map((r) => r.get('id') as string);
    expect(await idVertices()).toEqual(['cookie=k1', 'device=d1', 'member_id=m1', 'member_id=m2']);
    await store.removeId(seeded(member(c, 'm1')), id('cookie', 'k1'));
    await store.deleteNode(seeded(member(c, 'm2')));
    expect(await idVertices()).toEqual(['device=d1', 'member_id=m1']);
    await store.rekey(seeded(member(c, 'm1')), 'm9');
    expect(await idVertices()).toEqual(['device=d1', 'member_id=m9']);
  });

  test("when a person is erased, then no vertex and no relationship of the graph holds their values in any property; the others' values are still found", async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    const tag = newCustomer();
    const audit = { requestId: 'r-1', actor: 'admin' };
    const at = (memberId: string) => ({ ...member(c, memberId), audit });
    await store.createNode(seeded(at(`ann-${tag}`)), [id('email', `ann-${tag}@example.com`), id('device', `phone-${tag}`)]);
    await store.createNode(seeded(at(`ann2-${tag}`)), [id('device', `phone-${tag}`), id('cookie', `cookie-${tag}`)]);
    await store.replaceId(seeded(at(`ann2-${tag}`)), id('cookie', `cookie-${tag}`), id('cookie', `cookie2-${tag}`), false);
    await store.rekey(seeded(at(`ann2-${tag}`)), `ann3-${tag}`);
    await store.createNode(seeded(at(`bob-${tag}`)), [id('device', `bobs-device-${tag}`)]);
    const outcome = await store.erase({
      customerId: c,
      id: id('device', `phone-${tag}`),
      scope: 'person',
      unlinkedTypes: [],
      maxNodes: 100,
      maxIds: 100,
      audit,
    });
    expect(outcome).toEqual({ nodesDeleted: 2, idsRemoved: 0 });
    /** Whether any property of any vertex or relationship (lists included) contains `value`. */
    const inGraph = async (value: string) => {
      const { records } = await driver.executeQuery(
        'CALL () { MATCH (n) RETURN properties(n) AS props UNION ALL MATCH ()-[r]->() RETURN properties(r) AS props } ' +
          'WITH props WHERE any(k IN keys(props) WHERE any(v IN CASE WHEN valueType(props[k]) STARTS WITH "LIST" THEN props[k] ELSE [props[k]] END WHERE toString(v) CONTAINS $value)) ' +
          'RETURN count(*) AS found',
        { value },
        { database: connection.database },
      );
      return Number(records[0]?.get('found'));
    };
    for (const value of [`ann-${tag}`, `ann2-${tag}`, `ann3-${tag}`, `ann-${tag}@example.com`, `phone-${tag}`, `cookie-${tag}`, `cookie2-${tag}`]) {
      expect({ value, found: await inGraph(value) }).toEqual({ value, found: 0 });
    }
    expect(await inGraph(`bobs-device-${tag}`)).toBeGreaterThan(0);
  });

  test('when a node is created, then it points to its schema vertex with IN_SCHEMA (what keeps the schema from going)', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
    await store.createNode(seeded(member(c, 'm2')), []);
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
