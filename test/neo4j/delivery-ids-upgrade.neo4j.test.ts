// A Neo4j database written when delivery, condition and message ids came from counters all customers shared
// (:Sequence {name, last}, a uniqueness constraint on deliveryId alone, a plain index on (customer, deliveryId)):
// connecting moves it to per-customer counters and constraints, keeps every delivery as it was, and gives no
// customer an id it may have seen. The setup here is that earlier version's schema and data, written directly
// (test-only Cypher, not statements of the store).
import type { Driver } from 'neo4j-driver';
import neo4j from 'neo4j-driver';
import type { Delivery } from '../../src/domain/deliveries';
import { deliveryDocument } from '../../src/store/delivery-document';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { buildDraft } from '../helpers/deliveries';
import { earlier, expectNumberingAfterUpgrade } from '../helpers/delivery-ids-upgrade';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { emptyTestDatabase } from './test-database';

const EARLIER_SCHEMA = [
  'DROP CONSTRAINT delivery_customer_id_unique IF EXISTS',
  'DROP CONSTRAINT sequence_customer_name_unique IF EXISTS',
  'CREATE CONSTRAINT delivery_id_unique IF NOT EXISTS FOR (delivery:Delivery) REQUIRE delivery.deliveryId IS UNIQUE',
  'CREATE CONSTRAINT sequence_name_unique IF NOT EXISTS FOR (sequence:Sequence) REQUIRE sequence.name IS UNIQUE',
  'CREATE INDEX delivery_customer IF NOT EXISTS FOR (delivery:Delivery) ON (delivery.customer, delivery.deliveryId)',
];

describe('a Neo4j database whose deliveries were numbered by counters all customers shared', () => {
  const connection = neo4jConnectionFromEnv();
  let driver: Driver;
  const run = async (cypher: string, params: Record<string, unknown> = {}) =>
    (await driver.executeQuery(cypher, params, { database: connection.database })).records.map((r) => r.toObject());
  const old = earlier;

  beforeAll(async () => {
    driver = neo4jDriver(connection);
    await emptyTestDatabase(driver, connection.database, `database ${connection.database} at ${connection.uri}`);
    for (const statement of EARLIER_SCHEMA) await run(statement);
    // acme made deliveries 1 to 3 (2 deleted), bolt 4 and 5 (5 deleted); corp holds only a revoked mapi token,
    // dyn only a bearer token.
    for (const [customer, d] of [
      ['acme', old.a1],
      ['acme', old.a3],
      ['bolt', old.b4],
    ] as Array<[string, Delivery]>) {
      await run(
        `CREATE (:Delivery {customer: $customer, deliveryId: $deliveryId, conditionId: $conditionId, name: $name, priority: $priority,
                            isActive: $isActive, document: $document})`,
        {
          customer,
          deliveryId: neo4j.int(d.deliveryId),
          conditionId: neo4j.int(d.condition.conditionId),
          name: d.name,
          priority: neo4j.int(d.priority),
          isActive: d.condition.isActive,
          document: deliveryDocument(d),
        },
      );
    }
    await run(`UNWIND [['delivery', 5], ['condition', 5], ['message', 7]] AS counter CREATE (:Sequence {name: counter[0], last: counter[1]})`);
    await run(`CREATE (:Token {tokenId: 't-corp', customer: 'corp', kind: 'mapi', tokenHash: 'hash-corp', createdAt: '2025-01-01T00:00:00Z',
                               revokedAt: '2025-02-01T00:00:00Z'}),
                      (:Token {tokenId: 't-dyn', customer: 'dyn', kind: 'bearer', tokenHash: 'hash-dyn', createdAt: '2025-01-01T00:00:00Z'})`);
  });
  afterAll(() => driver.close());

  test('when the store connects, then every delivery keeps its ids, customers who may have seen ids go on after the shared counters, and new ones start at 1', async () => {
    const store = await Neo4jStore.connect(connection);
    try {
      await expectNumberingAfterUpgrade(store);
    } finally {
      await store.close();
    }

    expect(await run('MATCH (shared:Sequence) WHERE shared.customer IS NULL RETURN count(*) AS shared')).toEqual([{ shared: neo4j.int(0) }]);
    const constraints = (await run('SHOW CONSTRAINTS YIELD name RETURN name')).map((r) => r.name);
    expect(constraints).toEqual(expect.arrayContaining(['delivery_customer_id_unique', 'sequence_customer_name_unique']));
    expect(constraints).not.toContain('delivery_id_unique');
    expect(constraints).not.toContain('sequence_name_unique');
    expect((await run('SHOW INDEXES YIELD name RETURN name')).map((r) => r.name)).not.toContain('delivery_customer');

    // Connecting again changes nothing: the counters go on where they were.
    const again = await Neo4jStore.connect(connection);
    try {
      const next = await again.createDelivery('acme', buildDraft());
      expect([next.deliveryId, next.condition.conditionId, next.message[0]?.messageId]).toEqual([8, 8, 12]);
    } finally {
      await again.close();
    }
  });
});
