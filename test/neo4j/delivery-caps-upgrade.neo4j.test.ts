// A Neo4j database whose deliveries were stored before their vertices carried their caps (maxDeliveryCount,
// maxTotalCount, maxTotalCountPerDay), which impression.count.cypher checks: the first impression of such a delivery
// copies them from its document (delivery.keep-caps), and from then on they hold as for any delivery. The earlier
// vertex is made by removing the caps (test-only Cypher).
import type { Driver } from 'neo4j-driver';
import neo4j from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { loadStatement } from '../../src/store/neo4j/statements';
import { buildCondition, buildDraft } from '../helpers/deliveries';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { newCustomer } from '../store-contract/contract';
import { checkedImpression } from '../helpers/checked-showing';

describe('a Neo4j database whose deliveries carry no caps beside their documents', () => {
  const connection = neo4jConnectionFromEnv();
  let driver: Driver;
  let store: Neo4jStore;
  const run = async (cypher: string, params: Record<string, unknown> = {}) =>
    (await driver.executeQuery(cypher, params, { database: connection.database })).records.map((r) => r.toObject());
  const capsOf = (customer: string, deliveryId: number) =>
    run(
      `MATCH (d:Delivery {customer: $customer, deliveryId: $deliveryId})
       RETURN d.maxDeliveryCount AS maxDeliveryCount, d.maxTotalCount AS maxTotalCount, d.maxTotalCountPerDay AS maxTotalCountPerDay`,
      { customer, deliveryId: neo4j.int(deliveryId) },
    );
  /** Makes the delivery's vertex as an earlier version wrote it. */
  const removeCaps = (customer: string, deliveryId: number) =>
    run(
      `MATCH (d:Delivery {customer: $customer, deliveryId: $deliveryId})
       REMOVE d.maxDeliveryCount, d.maxTotalCount, d.maxTotalCountPerDay`,
      { customer, deliveryId: neo4j.int(deliveryId) },
    );
  const impression = (customerId: string, deliveryId: number) => ({
    person: { customerId, user: { type: 'device', id: 'd-1' }, unlinkedTypes: [], maxNodes: 10, maxIds: 10 },
    deliveryId,
    platform: 'ios' as const,
    day: '2026-06-01',
    receivedAt: new Date().toISOString(),
  });

  beforeAll(async () => {
    driver = neo4jDriver(connection);
    store = await Neo4jStore.connect(connection);
  });
  afterAll(async () => {
    await store?.close();
    await driver?.close();
  });

  test("when such a delivery's first impression comes, then its caps are copied from its document, and they hold", async () => {
    const c = newCustomer();
    const condition = buildCondition({ max_delivery_count: 1000, max_total_count: 2, max_total_count_per_day: 5 });
    const { deliveryId } = await store.createDelivery(c, buildDraft({ condition }));
    const written = { maxDeliveryCount: neo4j.int(1000), maxTotalCount: neo4j.int(2), maxTotalCountPerDay: neo4j.int(5) };
    expect(await capsOf(c, deliveryId)).toEqual([written]);
    await removeCaps(c, deliveryId);
    expect(await capsOf(c, deliveryId)).toEqual([{ maxDeliveryCount: null, maxTotalCount: null, maxTotalCountPerDay: null }]);

    await expect(store.recordImpression(checkedImpression(impression(c, deliveryId)))).resolves.toMatchObject({ answer: { personTotal: 1 } });
    expect(await capsOf(c, deliveryId)).toEqual([written]);
    await expect(store.recordImpression(checkedImpression(impression(c, deliveryId)))).resolves.toMatchObject({ answer: { personTotal: 2 } });
    await expect(store.recordImpression(checkedImpression(impression(c, deliveryId)))).rejects.toMatchObject({
      code: 'cap_reached',
      members: { cap: 'max_total_count' },
    });
    expect((await store.getDelivery(c, deliveryId))?.condition.deliveryCount).toBe(2);
  });

  test('when the document changed since it was read, then its caps are not copied from it', async () => {
    const c = newCustomer();
    const { deliveryId } = await store.createDelivery(c, buildDraft());
    await removeCaps(c, deliveryId);
    const statement = loadStatement('delivery.keep-caps');
    await run(statement.sent, {
      customer: c,
      deliveryId: neo4j.int(deliveryId),
      document: '{"an":"earlier document"}',
      maxDeliveryCount: neo4j.int(1),
      maxTotalCount: neo4j.int(1),
      maxTotalCountPerDay: neo4j.int(1),
    });
    expect(await capsOf(c, deliveryId)).toEqual([{ maxDeliveryCount: null, maxTotalCount: null, maxTotalCountPerDay: null }]);
  });
});
