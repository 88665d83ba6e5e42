// Times a search ALL and a graph ALL from an ID of a `links: false` type restricted to a schema, whose N holders
// all lie in one component (they also share a linking device): every holder is a start node, and a store that
// traversed from each on its own would walk the component N times. Store calls, no HTTP.
//
//   node dist-bench/bench/holders.js [N ...]                                   SQLite in memory
//   STORE=neo4j NEO4J_URI=bolt://127.0.0.1:7687 node dist-bench/bench/holders.js [N ...]
//
// Each N gets a customer of its own; each call is timed 3 times, the median printed, as one JSON line per N.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { TestStore as Store } from '../test/helpers/store';
import type { SchemaRecord, SearchQuery } from '../src/domain/model';
import type { GraphQuery } from '../src/domain/graph';
import { Neo4jStore } from '../src/store/neo4j/neo4j-store';
import { loadStatements } from '../src/store/neo4j/statements';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import { seeded } from './seeded';

const MEMBER: SchemaRecord = {
  schemaId: 'member',
  idTypes: [
    { type: 'member_id', secure: false },
    { type: 'device', secure: false },
    { type: 'ip', secure: false, links: false },
  ],
};

async function openStore(): Promise<Store> {
  if (process.env.STORE !== 'neo4j') return new SqliteStore({ path: ':memory:' });
  return Neo4jStore.connect(
    {
      uri: process.env.NEO4J_URI ?? 'bolt://127.0.0.1:7687',
      username: 'neo4j',
      password: process.env.NEO4J_PASSWORD || undefined,
      database: 'neo4j',
      callTimeoutMs: 30_000,
    },
    { statements: loadStatements(path.join(__dirname, '..', '..', 'cypher')) },
  );
}

async function median(call: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return Math.round(times.sort((a, b) => a - b)[1]!);
}

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number);
  const store = await openStore();
  try {
    for (const n of sizes.length > 0 ? sizes : [500, 1000, 2000]) {
      const customerId = `holders-${randomUUID()}`;
      await store.putSchema(customerId, MEMBER);
      const expectedTypes = MEMBER.idTypes;
      for (let i = 0; i < n; i += 1) {
        const ids = [
          { type: 'device', id: 'shared' },
          { type: 'ip', id: 'hot' },
        ];
        await store.createNode(seeded({ customerId, schemaId: 'member', key: { type: 'member_id', id: `m${i}` }, expectedTypes }), ids);
      }
      const from = { customerId, where: { schemaId: 'member', id: { type: 'ip', id: 'hot' } }, step: 'ALL' as const, exclude: false, unlinkedTypes: ['ip'] };
      const bounds = { maxNodes: 10_000, maxIds: 50_000 };
      const search: SearchQuery = { ...from, ...bounds, hiddenTypes: [], limit: 100 };
      const graph: GraphQuery = { ...from, ...bounds, hiddenTypes: [], answerNodes: 500 };
      const found = await store.searchWithTypes(search);
      const drawn = await store.graphWithTypes(graph);
      const searchMs = await median(() => store.searchWithTypes(search));
      const graphMs = await median(() => store.graphWithTypes(graph));
      console.log(JSON.stringify({ store: process.env.STORE ?? 'sqlite', n, total: found.total, nodes: drawn.nodes.length, searchMs, graphMs }));
    }
  } finally {
    await store.close();
  }
}

void main();
