// The attack on step ALL from an ID of a `links: false` type restricted to a schema, scaled down: N nodes each hold
// that ID and one linking device, so all N are start nodes in one component. A traversal per start node walked the
// component N times (quadratic: at N = 2,000 a graph took over 30 s and Neo4j went on after the 503). Here every
// statement the store sends is profiled (a driver that prefixes PROFILE), and the rows its traversals produce are
// counted: one walk of the component is about 2N vertices (the nodes and their keys), N walks about 2N².
import neo4j, { type Driver, type Session, type Transaction } from 'neo4j-driver';
import type { SchemaRecord } from '../../src/domain/model';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { loadStatements } from '../../src/store/neo4j/statements';
import { neo4jConnectionFromEnv } from '../helpers/store';
import { asChecked, id, member, MEMBER, newCustomer } from '../store-contract/contract';
import { seeded } from '../helpers/seeded';

const HOLDERS = 300;
const WITH_IP: SchemaRecord = { ...MEMBER, idTypes: [...MEMBER.idTypes, { type: 'ip', secure: false, links: false }] };

type Plan = { operatorType: string; rows?: number; children: Plan[] };

/** A driver whose sessions run every statement with PROFILE and add up the rows of its traversal operators. */
function profiling(driver: Driver, traversed: { rows: number }): Driver {
  const traversalRows = (plan: Plan): number =>
    (/^(VarLengthExpand|StatefulShortestPath)/.test(plan.operatorType) ? Number(plan.rows ?? 0) : 0) +
    plan.children.reduce((sum, child) => sum + traversalRows(child), 0);
  /** `runner` (a session, for a read's auto-commit statements, or a transaction), its statements profiled. */
  const profiled = <R extends Pick<Transaction, 'run'>>(runner: R): R =>
    new Proxy(runner, {
      get(target, method) {
        if (method === 'run') {
          return async (text: string, params: Record<string, unknown>, config?: object) => {
            const result = await (target.run as Session['run']).call(target, `PROFILE\n${text}`, params, config);
            traversed.rows += traversalRows(result.summary.profile as unknown as Plan);
            return result;
          };
        }
        const value = Reflect.get(target, method) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  return new Proxy(driver, {
    get(target, name) {
      if (name !== 'session') return Reflect.get(target, name);
      return (config: Parameters<Driver['session']>[0]) => {
        const session = target.session(config);
        const beginTransaction = (txConfig?: object) => profiled(session.beginTransaction(txConfig));
        return new Proxy(profiled(session), {
          get: (s, method) => (method === 'beginTransaction' ? beginTransaction : Reflect.get(s, method)),
        });
      };
    },
  });
}

describe(`step ALL from an ID that links nothing, held by ${HOLDERS} nodes of one component`, () => {
  const connection = neo4jConnectionFromEnv();
  let store: Neo4jStore;
  let driver: Driver;
  const traversed = { rows: 0 };
  let c: string;

  beforeAll(async () => {
    store = await Neo4jStore.connect(connection);
    driver = neo4j.driver(connection.uri, connection.password === undefined ? undefined : neo4j.auth.basic(connection.username, connection.password), {
      disableLosslessIntegers: true,
    });
    c = newCustomer();
    await store.putSchema(c, WITH_IP);
    await store.applyNodeWrites(
      Array.from({ length: HOLDERS }, (_, i) => ({
        kind: 'create' as const,
        node: seeded(asChecked(member(c, `m${i}`), WITH_IP, [id('device', 'shared'), id('ip', 'hot')])),
        ids: [id('device', 'shared'), id('ip', 'hot')],
      })),
    );
  });
  afterAll(async () => {
    await store.close();
    await driver.close();
  });

  const from = () => ({ customerId: c, where: { schemaId: 'member', id: id('ip', 'hot') }, step: 'ALL' as const, exclude: false, unlinkedTypes: ['ip'] });
  const bounds = { maxNodes: 10_000, maxIds: 50_000 };

  test('when searched and drawn, then the answers are whole and each walks the component a bounded number of times, not once per holder', async () => {
    const measured = new Neo4jStore(profiling(driver, traversed), connection.database, loadStatements());
    const found = await measured.searchWithTypes({ ...from(), ...bounds, hiddenTypes: [], limit: 10 });
    expect({ total: found.total, visitedNodes: found.visitedNodes }).toEqual({ total: HOLDERS + 2, visitedNodes: HOLDERS });
    const searchRows = traversed.rows;
    traversed.rows = 0;
    const drawn = await measured.graphWithTypes({ ...from(), ...bounds, hiddenTypes: [], answerNodes: 2_000 });
    expect({ nodes: drawn.nodes.length, truncated: drawn.truncated }).toEqual({ nodes: HOLDERS, truncated: false });
    const graphRows = traversed.rows;

    // One walk: the Id vertex, the holders, their keys and the device (2N + 2 vertices); the graph walks twice.
    expect(searchRows).toBeLessThanOrEqual(2 * (2 * HOLDERS + 2));
    expect(graphRows).toBeLessThanOrEqual(3 * (2 * HOLDERS + 2));
  });

  test('when the component passes the bounds, then component_too_large, as for any other search', async () => {
    await expect(store.searchWithTypes({ ...from(), maxNodes: HOLDERS - 1, maxIds: 50_000, hiddenTypes: [], limit: 10 })).rejects.toMatchObject({
      code: 'component_too_large',
    });
    await expect(store.searchWithTypes({ ...from(), maxNodes: 10_000, maxIds: HOLDERS + 1, hiddenTypes: [], limit: 10 })).rejects.toMatchObject({
      code: 'component_too_large',
    });
    await expect(store.graphWithTypes({ ...from(), maxNodes: 10_000, maxIds: HOLDERS + 1, hiddenTypes: [], answerNodes: 10 })).rejects.toMatchObject({
      code: 'component_too_large',
    });
  });
});
