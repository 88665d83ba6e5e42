// A Neo4j database whose idempotency keys were stored before they named the ID they were counted against
// (:ImpressionKey without `type` and `value`): connecting gives each the type and value '' (impression.adopt-keys),
// and then each still answers its repeats, and an erase of its customer deletes it, since any may be the erased
// person's; keys of other customers stay. The earlier keys are written directly (test-only Cypher).
import type { Driver } from 'neo4j-driver';
import neo4j from 'neo4j-driver';
import { ADOPT_KEYS_BATCH } from '../../src/store/neo4j/neo4j-impressions';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { buildCondition, buildDraft } from '../helpers/deliveries';
import { changedBy, forgetMigrations, UPGRADE } from '../helpers/neo4j-ledger';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { checkedImpression } from '../helpers/checked-showing';

describe('a Neo4j database whose idempotency keys name no ID', () => {
  const connection = neo4jConnectionFromEnv();
  let driver: Driver;
  const run = async (cypher: string, params: Record<string, unknown> = {}) =>
    (await driver.executeQuery(cypher, params, { database: connection.database })).records.map((r) => r.toObject());
  /** An answer as the earlier version stored it, and as the store answers it now. */
  const answer = (person_total: number) => ({ delivery_id: 1, delivery_count: 3, person_total, person_today: 1 });
  const answered = (personTotal: number) => ({ deliveryId: 1, deliveryCount: 3, personTotal, personToday: 1 });

  beforeAll(async () => {
    driver = neo4jDriver(connection);
    // acme and bolt each have delivery 1, made by the store.
    const store = await Neo4jStore.connect(connection);
    try {
      // Caps no test here reaches.
      const draft = buildDraft({ condition: buildCondition({ max_total_count: 100, max_total_count_per_day: 100 }) });
      await store.createDelivery('acme', draft);
      await store.createDelivery('bolt', draft);
    } finally {
      await store.close();
    }
    await run(
      `UNWIND $keys AS k
       CREATE (:ImpressionKey {customer: k.customer, deliveryId: 1, key: k.key, answer: k.answer, createdAt: datetime()})`,
      {
        keys: [
          { customer: 'acme', key: 'k-ann', answer: JSON.stringify(answer(1)) },
          { customer: 'acme', key: 'k-bob', answer: JSON.stringify(answer(2)) },
          { customer: 'bolt', key: 'k-cy', answer: JSON.stringify(answer(3)) },
        ],
      },
    );
    // And, as that version kept none, no ledger.
    await forgetMigrations(driver, connection.database);
  });
  afterAll(() => driver.close());

  const request = (customerId: string, key: string) => ({
    person: { customerId, user: { type: 'device', id: 'd-1' }, unlinkedTypes: [], maxNodes: 10, maxIds: 10 },
    deliveryId: 1,
    platform: 'ios' as const,
    day: '2026-06-01',
    idempotencyKey: key,
    receivedAt: new Date().toISOString(),
  });

  test('when the store connects, then the keys are marked, still replay, and an erase of their customer deletes them all, not those of others', async () => {
    const store = await Neo4jStore.connect(connection);
    try {
      expect(changedBy(store, UPGRADE.impressionKeys)).toBe(3);
      expect(await run('MATCH (key:ImpressionKey) RETURN key.customer AS customer, key.key AS key, key.type AS type, key.value AS value ORDER BY key')).toEqual(
        [
          { customer: 'acme', key: 'k-ann', type: '', value: '' },
          { customer: 'acme', key: 'k-bob', type: '', value: '' },
          { customer: 'bolt', key: 'k-cy', type: '', value: '' },
        ],
      );
      await expect(store.recordImpression(checkedImpression(request('acme', 'k-bob')))).resolves.toEqual({ answer: answered(2), replayed: true });

      const audit = { requestId: 'req-erase', actor: 'admin' };
      await store.erase({
        customerId: 'acme',
        id: { type: 'email', id: 'ann@example.com' },
        scope: 'person',
        unlinkedTypes: [],
        maxNodes: 10,
        maxIds: 10,
        audit,
      });

      expect((await store.recordImpression(checkedImpression(request('acme', 'k-ann')))).replayed).toBe(false);
      expect((await store.recordImpression(checkedImpression(request('acme', 'k-bob')))).replayed).toBe(false);
      await expect(store.recordImpression(checkedImpression(request('bolt', 'k-cy')))).resolves.toEqual({ answer: answered(3), replayed: true });
      // The keys counted now name their ID.
      expect(await run("MATCH (key:ImpressionKey {customer: 'acme'}) RETURN key.type AS type, key.value AS value")).toEqual([
        { type: 'device', value: 'd-1' },
        { type: 'device', value: 'd-1' },
      ]);
    } finally {
      await store.close();
    }

    // Connecting again applies no upgrade: the ledger has them.
    const again = await Neo4jStore.connect(connection);
    try {
      expect(again.migrated).toEqual([]);
    } finally {
      await again.close();
    }
  });

  test('when more keys than one batch name no ID, then connecting marks every one', async () => {
    await run(
      `UNWIND range(1, $n) AS i
       CREATE (:ImpressionKey {customer: 'dyn', deliveryId: 1, key: 'k-' + i, answer: '{}', createdAt: datetime() - duration({milliseconds: i % 7})})`,
      { n: neo4j.int(ADOPT_KEYS_BATCH + 5) },
    );
    await forgetMigrations(driver, connection.database);
    const store = await Neo4jStore.connect(connection);
    try {
      expect(changedBy(store, UPGRADE.impressionKeys)).toBe(ADOPT_KEYS_BATCH + 5);
      expect(await run("MATCH (key:ImpressionKey {customer: 'dyn'}) WHERE key.type IS NULL RETURN count(*) AS left")).toEqual([{ left: neo4j.int(0) }]);
    } finally {
      await store.close();
    }
  });
});
