// Upgrade 6 of the Neo4j ledger (src/store/neo4j/neo4j-migrations.ts): a database an earlier version wrote has history
// entries without a position in the change feed. Connecting gives each its customer's next position, in the order
// the entries were written, and the feed answers them, the writes made afterwards following them. The legacy entries
// are written with test-only Cypher, as that version's history.append did.
import neo4j, { type Driver } from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { stored } from '../../src/store/neo4j/neo4j-history';
import { historyEntry } from '../../src/store/history';
import { forgetMigrations, changedBy, UPGRADE } from '../helpers/neo4j-ledger';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { seeded } from '../helpers/seeded';
import { id, member, MEMBER, newCustomer } from '../store-contract/contract';

const connection = neo4jConnectionFromEnv();
let driver: Driver;
beforeAll(() => {
  driver = neo4jDriver(connection);
});
afterAll(() => driver.close());

/** An entry as an earlier version appended it: no position; its time given. */
async function legacyEntry(customer: string, key: string, atMillis: number): Promise<void> {
  const entry = stored(historyEntry(member(customer, key), 'create', [id('member_id', key)], [], new Date(atMillis).toISOString()), 0);
  await driver.executeQuery(
    `CREATE (e:HistoryEntry {customer: $customer, schema: $e.schema, keyType: $e.keyType, keyId: $e.keyId, newKeyId: $e.newKeyId,
       time: datetime({epochMillis: $at}), position: $e.position, entry: $e.entry, write: 'legacy'})`,
    { customer, e: entry, at: neo4j.int(atMillis) },
    { database: connection.database },
  );
}

test('when a database holds entries without positions, then the start gives them positions in the order they were written, and the feed answers them before later writes', async () => {
  const [a, b] = [newCustomer(), newCustomer()];
  const base = Date.now() - 60_000;
  // Written out of order, interleaved between the two customers.
  await legacyEntry(a, 'a2', base + 2);
  await legacyEntry(b, 'b1', base + 1);
  await legacyEntry(a, 'a1', base + 1);
  await legacyEntry(a, 'a3', base + 3);
  await forgetMigrations(driver, connection.database);

  const store = await Neo4jStore.connect(connection);
  try {
    expect(changedBy(store, UPGRADE.feedPositions)).toBeGreaterThanOrEqual(4);
    await store.putSchema(a, MEMBER);
    await store.createNode(seeded(member(a, 'a4')), []);
    const ofA = await store.changesAfter(a, 0, 100);
    expect(ofA.changes.map((c) => c.entry.key.id)).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(ofA.changes.map((c) => c.seq)).toEqual([1, 2, 3, 4]);
    expect((await store.changesAfter(b, 0, 100)).changes.map((c) => [c.seq, c.entry.key.id])).toEqual([[1, 'b1']]);
  } finally {
    await store.close();
  }
  // A second start finds every entry with its position, and gives none.
  const again = await Neo4jStore.connect(connection);
  await again.close();
  expect(again.migrated).toEqual([]);
});
