// The Bolt round trips and statements of an import on Neo4j (src/store/neo4j/neo4j-import.ts), counted as
// round-trips.neo4j.test.ts counts the hot calls': a batch's records go in one round trip whatever their number, and
// abandoning a large import is a few auto-commit statements that delete in batches of their own. A change that adds
// a round trip to a batch fails here.
import { counted } from '../helpers/bolt-round-trips';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import type { ImportBatch } from '../../src/domain/ports/imports';
import { neo4jConnectionFromEnv } from '../helpers/store';
import { buildDraft } from '../helpers/deliveries';
import { id, MEMBER } from '../store-contract/contract';

const C = `import-rt-${process.pid}`;
const empty = (): ImportBatch => ({ schemas: [], nodes: [], separations: [], deliveries: [], impressions: [], history: [] });
const key = (n: number) => id('member_id', `m${n}`);

describe('round trips to Neo4j of an import', () => {
  let store: Neo4jStore;

  beforeAll(async () => {
    // Its imports say they are alive once in five minutes: no beat comes between the statements this file counts.
    store = await Neo4jStore.connect({ ...neo4jConnectionFromEnv(), importStaleMs: 3_600_000 });
  });
  afterAll(() => store.close());

  test('when an import begins, writes its batches, is abandoned and begins again, then each batch is one round trip and its commit, schemas aside', async () => {
    await expect(counted(() => store.beginImport(C))).resolves.toEqual({ statements: ['import.begin'], transactions: 1, roundTrips: 2 });

    const withSchema = await counted(() => store.importBatch(C, { ...empty(), schemas: [MEMBER] }));
    // The mark, then a schema put as putSchema makes it (schema.guard … idtype.delete-orphans), then the commit.
    expect(withSchema.statements.slice(0, 2)).toEqual(['import.touch', 'schema.guard']);
    expect(withSchema.roundTrips).toBe(withSchema.statements.length + 1);

    // A delivery made by the store itself, as the export would list it.
    const source = `${C}-source`;
    const delivery = await store.createDelivery(source, buildDraft({ name: 'first' }));
    const nodes = Array.from({ length: 200 }, (_, n) => ({ schemaId: 'member', key: key(n), ids: [id('device', `d${n}`), id('email', `e${n}@example.com`)] }));
    const records: ImportBatch = {
      schemas: [],
      nodes,
      separations: [{ a: { schemaId: 'member', key: key(0) }, b: { schemaId: 'member', key: key(1) } }],
      deliveryIds: { delivery: delivery.deliveryId, condition: delivery.condition.conditionId, message: 5 },
      deliveries: [delivery],
      impressions: [{ deliveryId: delivery.deliveryId, id: id('device', 'd0'), days: [{ day: '2026-03-01', count: 2 }] }],
      history: nodes.map((n) => ({
        schemaId: 'member',
        key: n.key,
        entries: [
          { at: '2026-03-01T00:00:00.000Z', requestId: 'r', actor: 'a', op: 'create', schema: 'member', key: n.key, added: [n.key, ...n.ids], removed: [] },
        ],
      })),
    };
    await expect(counted(() => store.importBatch(C, records))).resolves.toEqual({
      statements: ['import.touch', 'import.nodes', 'import.separations', 'import.sequences', 'import.deliveries', 'import.impressions', 'import.history'],
      transactions: 1,
      roundTrips: 2,
    });

    await expect(counted(() => store.abandonImport(C))).resolves.toEqual({
      statements: [
        'auto:import.abandoning',
        'auto:import.abandon-nodes',
        'auto:import.abandon-ids',
        'auto:import.abandon-history',
        'auto:import.abandon-impressions',
        'import.abandon-rest',
        'import.unmark',
      ],
      transactions: 1,
      roundTrips: 7,
    });
    await expect(store.unfinishedImports(0)).resolves.not.toContain(C);
    await expect(store.getNodeIds({ customerId: C, schemaId: 'member', key: key(0) })).resolves.toBeUndefined();
    await store.beginImport(C);
    await store.abandonImport(C);
  });
});
