// Several services applying cypher/schema/ at the same moment to a database without it, as several instances do
// when they start together on an empty database, or notice together that Neo4j came back empty. IF NOT EXISTS does
// not cover that race on its own: one statement in about eight rounds of four failed with
// EquivalentSchemaRuleAlreadyExists before applySchema ran such a statement once more.
import type { Driver } from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { loadStatements, schemaObjects } from '../../src/store/neo4j/statements';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';

const STORES = 4;
const ROUNDS = 8;

describe('cypher/schema/ applied by several services at once', () => {
  const connection = neo4jConnectionFromEnv();
  const objects = schemaObjects(loadStatements().schema);
  let driver: Driver;
  let stores: Neo4jStore[];

  beforeAll(async () => {
    driver = neo4jDriver(connection);
    stores = await Promise.all(Array.from({ length: STORES }, () => Neo4jStore.connect(connection)));
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await driver.close();
  });

  /** Drops every constraint and index cypher/schema/ makes (test-only housekeeping; the names are our files'). */
  async function dropAll(): Promise<void> {
    for (const { name, constraint } of objects) {
      await driver.executeQuery(`DROP ${constraint ? 'CONSTRAINT' : 'INDEX'} ${name} IF EXISTS`, {}, { database: connection.database });
    }
  }

  test(`when ${STORES} services apply it at once to a database without it, ${ROUNDS} times, then none fails and all of it is in place each time`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      await dropAll();
      await expect(stores[0]?.missingSchema()).resolves.toHaveLength(objects.length);

      const settled = await Promise.allSettled(stores.map((store) => store.applySchema({ awaitIndexes: true })));

      expect([round, settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []))]).toEqual([round, []]);
      expect([round, await stores[0]?.missingSchema()]).toEqual([round, []]);
    }
  }, 120_000);
});
