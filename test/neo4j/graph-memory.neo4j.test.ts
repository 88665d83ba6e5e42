// The explorer's graph and Neo4j's memory. Every transaction draws from one pool (dbms.memory.transaction.total.max:
// 70% of the heap, 716.8 MiB on the 1 GiB heap of the local server), so a statement must need a small part of it
// whatever size the bounds allow (graph.all.cypher says how its statements keep to that); and a refusal of memory is
// answered at once, never retried (src/store/neo4j/driver-errors.ts, isOutOfMemory).
import type { Driver } from 'neo4j-driver';
import type { SearchQuery } from '../../src/domain/model';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { startParams } from '../../src/store/neo4j/neo4j-search';
import { int } from '../../src/store/neo4j/query';
import { checkParams, loadStatement, loadStatements } from '../../src/store/neo4j/statements';
import { startApp, type TestApp } from '../helpers/app';
import { counted } from '../helpers/bolt-round-trips';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { id, member, MEMBER, newCustomer } from '../store-contract/contract';
import { seeded } from '../helpers/seeded';

/** A twentieth of the pool of a 1 GiB heap (the local server's): far from all of it. */
const MEMORY_BOUND = 32 * 1024 * 1024;
const NODES = 2_000;

describe('the graph statements and the memory Neo4j gives a transaction', () => {
  const connection = neo4jConnectionFromEnv();
  let driver: Driver;
  let store: Neo4jStore;
  /** A person of NODES nodes in a chain (node i holds l(i) and l(i + 1)), and one of NODES nodes around one device. */
  let chain: string;
  let star: string;

  beforeAll(async () => {
    driver = neo4jDriver(connection);
    store = await Neo4jStore.connect(connection);
    chain = newCustomer();
    star = newCustomer();
    for (const customer of [chain, star]) {
      await store.putSchema(customer, MEMBER);
      for (let from = 0; from < NODES; from += 500) {
        const outcomes = await store.applyNodeWrites(
          Array.from({ length: 500 }, (_, n) => {
            const i = from + n;
            const ids = customer === chain ? [id('device', `l${i}`), id('device', `l${i + 1}`)] : [id('device', 'hot')];
            return { kind: 'create' as const, node: seeded(member(customer, `p${i}`)), ids };
          }),
        );
        expect(outcomes.filter((o) => o !== undefined)).toEqual([]);
      }
    }
  });
  afterAll(async () => {
    await store?.close();
    await driver?.close();
  });

  /**
   * The statement run as Neo4jGraph runs it (reach, in src/store/neo4j/neo4j-graph.ts) with TRAVERSAL_MAX_NODES and
   * TRAVERSAL_MAX_IDS at their defaults, under PROFILE: the most memory it held at once (GlobalMemory), and how
   * many nodes it answered.
   */
  async function profiled(name: 'graph.all' | 'graph.one', customer: string, start: Pick<SearchQuery, 'key' | 'where'>) {
    const statement = loadStatement(name);
    const params = {
      ...startParams(customer, start.key, start.where),
      authenticated: false,
      unlinkedTypes: null,
      hiddenTypes: null,
      maxNodes: int(10_000),
      maxIds: int(50_000),
      answerBytes: null,
    };
    checkParams(statement, params);
    const session = driver.session({ database: connection.database });
    try {
      const result = await session.run(`PROFILE ${statement.sent}`, params);
      const row = result.records[0]?.toObject() as { visited: unknown; nodes: unknown[] };
      return {
        memory: Number(result.summary.profile ? result.summary.profile.arguments.GlobalMemory : 0),
        visited: Number(row.visited),
        answered: row.nodes.length,
      };
    } finally {
      await session.close();
    }
  }

  const fromFirst = { key: { schemaId: 'member', key: id('member_id', 'p0') } };
  const fromHot = { where: { id: id('device', 'hot') } };

  test.each([
    ['graph.all', 'a chain, from its first node', () => chain, fromFirst],
    ['graph.all', 'one device, from the device', () => star, fromHot],
    ['graph.one', 'one device, from the device', () => star, fromHot],
    ['graph.one', 'one device, from a holder', () => star, fromFirst],
  ] as const)(
    `when %s draws a person of ${NODES} nodes (%s), then it reaches every one and holds under 32 MiB at once`,
    async (name, _shape, customer, start) => {
      const { memory, visited, answered } = await profiled(name, customer(), start);
      expect([visited, answered]).toEqual([NODES, NODES]);
      expect(memory).toBeGreaterThan(0);
      expect(memory).toBeLessThan(MEMORY_BOUND);
    },
  );

  describe('when Neo4j refuses a statement memory', () => {
    let app: TestApp;
    const customer = newCustomer();

    beforeAll(async () => {
      // The service's own statements need a small part of the pool (above), so this store's graph.all is one that
      // needs more than the whole of it, of any heap: an aggregation in a subquery counts the list it imports once
      // per group, 10,000 times a list of 10,000 maps. Neo4j counts that memory without allocating it, and refuses
      // the statement within a second (MemoryPoolOutOfMemoryError, which the driver would retry as transient).
      const statements = loadStatements();
      statements.byName['graph.all'] = {
        ...statements.byName['graph.all'],
        sent: [
          'WITH [x IN range(1, 10000) | {node: x, level: x}] AS placed, 0 AS deepest',
          'RETURN COLLECT { UNWIND placed AS reached WITH reached.node AS node, min(reached.level) AS level RETURN coalesce(level, deepest) } AS found',
        ].join('\n'),
      };
      app = await startApp({ store: await Neo4jStore.connect(connection, { statements }) });
      await app.store.putSchema(customer, MEMBER);
      await app.store.createNode(seeded(member(customer, 'm1')), [id('device', 'd1')]);
    });
    afterAll(() => app?.close());

    test('then the call is 503 server_busy after one attempt, naming nothing of the store', async () => {
      let res: Awaited<ReturnType<TestApp['call']>> | undefined;
      const { statements } = await counted(async () => {
        res = await app.call('POST', `/v1/${customer}/_graph`, { body: { match: { from: { schema: 'member', key: { type: 'member_id', id: 'm1' } } } } });
      });
      expect(res?.status).toBe(503);
      expect(res?.body).toMatchObject({
        code: 'server_busy',
        detail: 'The store has no memory left for this request right now; retry later, or ask for less.',
      });
      expect(res?.text).not.toMatch(/neo4j|Neo\.|memory\.transaction|MiB|MATCH|UNWIND/i);
      // One statement sent, not one a retry: the statement is not one of cypher/, as swapped above.
      expect(statements).toEqual(['auto:not a statement of cypher/']);
    });
  });
});
