// The explorer's read racing writers on Neo4j. A graph is read in several statements (the start nodes, the
// traversal, the answered nodes' IDs), and each sees what is committed when it runs, while writers create and delete
// holders of the ID every graph starts from or passes through. A node deleted between two of them must leave the
// answer, never fail it: the route answers 500 for any error of the store that is not a domain error, so every call
// here must resolve. And the nodes that stay must always be there: Neo4j does not protect a traversal from
// concurrent writes (reading the hub's links while a holder of it is deleted can end that read early), so the graph
// statements answer the union of two traversals (cypher/graph.reach-all.cypher). Store calls, not HTTP, so that
// 10,000 of them take seconds, not minutes.
import type { GraphQuery } from '../../src/domain/graph';
import type { IdPair } from '../../src/domain/model';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { asChecked, id, member, MEMBER, newCustomer } from '../store-contract/contract';
import { neo4jConnectionFromEnv } from '../helpers/store';
import { seeded } from '../helpers/seeded';

const GRAPH_CALLS = 10_000;
const READERS = 8;
const WRITERS = 4;
const STAYING = 6;

describe('graphs read while holders of their ID are created and deleted', () => {
  let store: Neo4jStore;
  beforeAll(async () => {
    store = await Neo4jStore.connect(neo4jConnectionFromEnv());
  });
  afterAll(async () => {
    await store.close();
  });

  test(`when ${GRAPH_CALLS} graph calls race ${WRITERS} writers creating and deleting holders of the hub ID, then every one answers`, async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    const hub = id('device', 'hub');
    const holding = (i: number): IdPair[] => [hub, id('cookie', `c${i % 3}`)];
    for (let i = 0; i < STAYING; i += 1) await store.createNode(seeded(asChecked(member(c, `m${i}`), MEMBER, holding(i))), holding(i));
    const bounds = { customerId: c, exclude: false, hiddenTypes: [], unlinkedTypes: [], maxNodes: 10_000, maxIds: 50_000, answerNodes: 500 };
    const queries: GraphQuery[] = [
      { ...bounds, key: { schemaId: 'member', key: id('member_id', 'm0') }, step: 'ALL' },
      { ...bounds, where: { id: hub }, step: 'ALL' },
      { ...bounds, where: { schemaId: 'member', id: hub }, step: 'ALL' },
      { ...bounds, where: { id: hub }, step: 'ONE' },
      { ...bounds, where: { schemaId: 'member', id: hub }, step: 'ONE' },
      { ...bounds, key: { schemaId: 'member', key: id('member_id', 'm1') }, step: 'ONE' },
      // Also the holders of an ID that links nothing, each linked on through the hub.
      { ...bounds, where: { schemaId: 'member', id: id('cookie', 'c1') }, unlinkedTypes: ['cookie'], step: 'ALL' },
    ];

    let done = false;
    let written = 0;
    const writerFailures: string[] = [];
    const writer = async (w: number) => {
      for (let i = 0; !done; i += 1) {
        const node = asChecked(member(c, `w${w}-${i}`), MEMBER, holding(i));
        try {
          await store.createNode(seeded(node), holding(i));
          await store.deleteNode(seeded(node));
          written += 1;
        } catch (e) {
          if (writerFailures.length < 5) writerFailures.push(String(e));
        }
      }
    };
    let sent = 0;
    let answered = 0;
    const failures: string[] = [];
    const reader = async () => {
      while (sent < GRAPH_CALLS) {
        const which = sent % queries.length;
        const query = queries[which]!;
        sent += 1;
        try {
          const graph = await store.graphWithTypes(query);
          // The nodes that stay are always there.
          if (graph.nodes.length >= STAYING) answered += 1;
          else failures.push(`query ${which}: ${graph.nodes.map((n) => n.key.id).join(', ')}`);
        } catch (e) {
          if (failures.length < 5) failures.push(String(e));
        }
      }
    };

    const writing = Array.from({ length: WRITERS }, (_, w) => writer(w));
    try {
      await Promise.all(Array.from({ length: READERS }, () => reader()));
    } finally {
      done = true;
      await Promise.all(writing);
    }

    expect({ answered, failures }).toEqual({ answered: GRAPH_CALLS, failures: [] });
    // The race happened: the writers went on throughout.
    expect({ writerFailures, wroteEnough: written > 100 }).toEqual({ writerFailures: [], wroteEnough: true });
  }, 300_000);
});
