// Import batches written at once on Neo4j (src/store/neo4j/neo4j-import.ts): as many as importBatching says, each on
// a lane of its own. Batches that share IDs, listed in opposite orders, all commit, with each ID one vertex linked
// by every node that holds it; the feed shows none of the import's entries before it finishes, and then all of them,
// numbered in the order the batches were handed over, whichever committed first.
import type { Driver } from 'neo4j-driver';
import type { ImportBatch } from '../../src/domain/ports/imports';
import { DEFAULT_SETTINGS, type HistoryEntry } from '../../src/domain/model';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { id, MEMBER, newCustomer } from '../store-contract/contract';

const connection = neo4jConnectionFromEnv();
let store: Neo4jStore;
let driver: Driver;

beforeAll(async () => {
  store = await Neo4jStore.connect(connection);
  driver = neo4jDriver(connection);
});

afterAll(async () => {
  await Promise.all([store?.close(), driver?.close()]);
});

const empty = (): ImportBatch => ({ schemas: [], nodes: [], separations: [], deliveries: [], impressions: [], history: [] });
const SHARED = ['s1', 's2', 's3', 's4', 's5'].map((value) => id('device', value));

/** `count` member nodes from `first` on, each holding the shared devices (in `order`) and a cookie of its own, with its create. */
function nodesBatch(first: number, count: number, order: 'forward' | 'backward'): ImportBatch {
  const shared = order === 'forward' ? SHARED : [...SHARED].reverse();
  const nodes = Array.from({ length: count }, (_, n) => {
    const m = String(first + n).padStart(5, '0');
    return { schemaId: 'member', key: id('member_id', `m${m}`), ids: [...shared, id('cookie', `k${m}`)] };
  });
  const history = nodes.map((node) => {
    const entry: HistoryEntry = {
      at: '2026-03-01T00:00:00.000Z',
      requestId: `r-${node.key.id}`,
      actor: 'admin',
      op: 'create',
      schema: 'member',
      key: node.key,
      added: [node.key, ...node.ids],
      removed: [],
    };
    return { schemaId: 'member', key: node.key, entries: [entry] };
  });
  return { ...empty(), nodes, history };
}

test('when batches sharing IDs are written at once, then each commits, each shared ID is one vertex linked by every node, and the feed numbers their entries in the order they were handed over, from the finish on', async () => {
  const c = newCustomer();
  const { weight, atOnce } = await store.importBatching();
  expect(atOnce).toBeGreaterThan(1);
  await store.beginImport(c);
  expect(await store.importBatch(c, { ...empty(), schemas: [MEMBER] })).toBeUndefined();

  // Each node weighs 7 records (6 IDs and an entry). The first batch is the largest, so that a later one may commit
  // before it.
  const sizes = Array.from({ length: atOnce }, (_, lane) => (lane === 0 ? Math.floor(weight / 7) : 40));
  const batches = sizes.map((size, lane) =>
    nodesBatch(
      sizes.slice(0, lane).reduce((a, b) => a + b, 0),
      size,
      lane % 2 === 0 ? 'forward' : 'backward',
    ),
  );
  const refusals = await Promise.all(batches.map((batch) => store.importBatch(c, batch)));
  expect(refusals).toEqual(batches.map(() => undefined));
  expect(await store.changesAfter(c, 0, 10)).toMatchObject({ changes: [], head: 0 });

  await store.finishImport(c, DEFAULT_SETTINGS, []);
  const total = sizes.reduce((a, b) => a + b, 0);
  const feed = await store.changesAfter(c, 0, total + 10);
  expect(feed.head).toBe(total);
  expect(feed.changes.map((change) => change.seq)).toEqual(Array.from({ length: total }, (_, n) => n + 1));
  expect(feed.changes.map((change) => change.entry.key.id)).toEqual(batches.flatMap((batch) => batch.nodes.map((node) => node.key.id)));

  const { records } = await driver.executeQuery(
    'MATCH (shared:Id {customer: $c, type: "device"}) RETURN shared.value AS value, COUNT { (shared)<-[:LINKED]-(:IdNode) } AS holders ORDER BY value',
    { c },
    { database: connection.database },
  );
  expect(records.map((r) => [r.get('value'), Number(r.get('holders'))])).toEqual(SHARED.map((device) => [device.id, total]));
  await expect(store.unfinishedImports(0)).resolves.not.toContain(c);
});
