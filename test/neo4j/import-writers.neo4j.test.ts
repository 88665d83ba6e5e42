// Writes through another service process to a customer that one process is importing into, on one Neo4j database
// (two stores stand for the two processes, neither reading the other's import marks): a write that reaches the
// customer after the import began (of nodes, schemas, settings, blocklist, separations or deliveries) is refused
// import_in_progress and stores nothing, whatever that process knows of the import; and a write that took the
// customer's change counter before the import began commits first, the import waiting for it, and the import then
// finds the customer not empty.
import type { Driver } from 'neo4j-driver';
import type { ImportBatch } from '../../src/domain/ports/imports';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { seeded } from '../helpers/seeded';
import { neo4jConnectionFromEnv, neo4jDriver, untilOneIsBlocked } from '../helpers/store';
import { buildDraft } from '../helpers/deliveries';
import { id, member, MEMBER, newCustomer, SHOP } from '../store-contract/contract';

const AUDIT = { requestId: 'req-1', actor: 'token:t-1' };

const connection = neo4jConnectionFromEnv();
let importing: Neo4jStore;
let other: Neo4jStore;
let driver: Driver;

beforeAll(async () => {
  [importing, other] = await Promise.all([Neo4jStore.connect(connection), Neo4jStore.connect(connection)]);
  driver = neo4jDriver(connection);
});

afterAll(async () => {
  await Promise.all([importing?.close(), other?.close(), driver?.close()]);
});

/** The first batch of an import: the member schema, and nodes m0 and m1 holding d1. */
const firstBatch = (): ImportBatch => ({
  schemas: [MEMBER],
  nodes: [
    { schemaId: 'member', key: id('member_id', 'm0'), ids: [] },
    { schemaId: 'member', key: id('member_id', 'm1'), ids: [id('device', 'd1')] },
  ],
  separations: [],
  deliveries: [],
  impressions: [],
  history: [],
});

test('when one process imports a customer, then node writes to it through another are import_in_progress and store nothing, and once the import has finished they are written', async () => {
  const c = newCustomer();
  await importing.beginImport(c);
  expect(await importing.importBatch(c, firstBatch())).toBeUndefined();

  await expect(other.createNode(seeded(member(c, 'm2')), [id('device', 'd2')])).rejects.toMatchObject({ code: 'import_in_progress' });
  await expect(other.insertIds(seeded(member(c, 'm1')), [id('device', 'd3')])).rejects.toMatchObject({ code: 'import_in_progress' });
  await expect(other.deleteNode(seeded(member(c, 'm1')))).rejects.toMatchObject({ code: 'import_in_progress' });
  // A _bulk batch is refused whole, as a store that cannot be written to refuses it.
  await expect(
    other.applyNodeWrites([
      { kind: 'create', node: seeded(member(c, 'm3')), ids: [id('device', 'd3')] },
      { kind: 'create', node: seeded(member(c, 'm4')), ids: [] },
    ]),
  ).rejects.toMatchObject({ code: 'import_in_progress' });
  for (const m of ['m2', 'm3', 'm4']) expect(await other.getNodeIds(member(c, m))).toBeUndefined();
  expect(await other.getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);

  await importing.finishImport(c, { requireToken: false, timezone: 'UTC' }, []);
  await other.createNode(seeded(member(c, 'm2')), [id('device', 'd2')]);
  expect(await other.getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
});

test('when one process imports a customer, then its other writes through another process are import_in_progress and store nothing', async () => {
  const c = newCustomer();
  await importing.beginImport(c);
  expect(await importing.importBatch(c, firstBatch())).toBeUndefined();
  const ref = (m: string) => ({ schemaId: 'member', key: id('member_id', m) });
  const refused = { code: 'import_in_progress' };

  await expect(other.putSchema(c, SHOP)).rejects.toMatchObject(refused);
  await expect(other.putSettings(c, { requireToken: true, timezone: 'Europe/Paris' })).rejects.toMatchObject(refused);
  await expect(other.putBlocklist(c, [{ type: 'device', values: ['d1'], ignoreCase: false }])).rejects.toMatchObject(refused);
  await expect(other.separate({ customerId: c, a: ref('m0'), b: ref('m1'), removeSharedFrom: 'none', audit: AUDIT })).rejects.toMatchObject(refused);
  await expect(other.createDelivery(c, buildDraft())).rejects.toMatchObject(refused);

  expect(await other.getSchema(c, 'shop')).toBeUndefined();
  expect(await other.getSchema(c, 'member')).toEqual(MEMBER);
  expect(await other.listSeparations(c, 0, 10)).toEqual({ items: [], total: 0 });
  expect(await other.listDeliveries(c, 0, 10)).toMatchObject({ total: 0 });
  expect(await other.customerPolicy(c)).toMatchObject({ settings: { requireToken: false, timezone: 'UTC' }, blockRules: [] });
  await importing.finishImport(c, { requireToken: false, timezone: 'UTC' }, []);
  await expect(other.putSchema(c, SHOP)).resolves.toMatchObject({ created: true });
});

test("when a write holds the customer's change counter as an import begins, then the import waits for its commit and is refused customer_not_empty", async () => {
  const c = newCustomer();
  const session = driver.session({ database: connection.database });
  const tx = await session.beginTransaction();
  try {
    // What a node write does last (history.append.cypher), left uncommitted: the counter locked, an entry written.
    await tx.run(
      "MERGE (sequence:Sequence {customer: $customer, name: 'change'}) ON CREATE SET sequence.last = 0 " +
        'SET sequence.last = sequence.last + 1 CREATE (:HistoryEntry {customer: $customer, seq: sequence.last})',
      { customer: c },
    );
    const beginning = importing.beginImport(c).then(
      () => 'begun',
      (e: unknown) => (e as { code?: string }).code,
    );
    await untilOneIsBlocked(driver, connection.database);
    await tx.commit();
    expect(await beginning).toBe('customer_not_empty');
    expect(await importing.unfinishedImports(0)).not.toContain(c);
  } finally {
    await session.close();
  }
});
