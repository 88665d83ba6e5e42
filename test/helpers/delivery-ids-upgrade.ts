// The data both stores' upgrade tests start from (deliveries numbered by counters all customers shared, as an older
// version did), and what must hold once the store has opened it: every delivery keeps its ids, customers who may
// have seen ids go on after the shared counters, and the others start at 1.
import { assembleDelivery, type Delivery, ZERO_COUNTS } from '../../src/domain/deliveries';
import type { TestStore as Store } from './store';
import { buildDraft, buildMessage } from './deliveries';

/** A delivery document as the earlier store wrote it. */
export const storedEarlier = (deliveryId: number, conditionId: number, messageIds: number[]): Delivery =>
  assembleDelivery(buildDraft({ name: `d${deliveryId}`, message: messageIds.map(() => buildMessage()) }), {
    deliveryId,
    conditionId,
    messageIds,
    counts: ZERO_COUNTS,
  });

/**
 * acme made deliveries 1 to 3 (2 deleted), bolt 4 and 5 (5 deleted); the shared counters stood at 5 (deliveries,
 * conditions) and 7 (messages); corp holds only a revoked mapi token, dyn only a bearer token.
 */
export const earlier = { a1: storedEarlier(1, 1, [1, 2]), a3: storedEarlier(3, 3, [4]), b4: storedEarlier(4, 4, [5, 6]) };

export async function expectNumberingAfterUpgrade(store: Store): Promise<void> {
  await expect(store.listDeliveries('acme', 0, 100)).resolves.toEqual({ items: [earlier.a1, earlier.a3], total: 2 });
  await expect(store.listDeliveries('bolt', 0, 100)).resolves.toEqual({ items: [earlier.b4], total: 1 });
  await expect(store.getDelivery('acme', 3)).resolves.toEqual(earlier.a3);

  const ids = (d: Delivery) => [d.deliveryId, d.condition.conditionId, ...d.message.map((m) => m.messageId)];
  const twoMessages = () => buildDraft({ message: [buildMessage(), buildMessage()] });
  expect(ids(await store.createDelivery('acme', twoMessages()))).toEqual([6, 6, 8, 9]);
  expect(ids(await store.createDelivery('bolt', twoMessages()))).toEqual([6, 6, 8, 9]);
  expect(ids(await store.createDelivery('corp', twoMessages()))).toEqual([6, 6, 8, 9]);
  expect(ids(await store.createDelivery('dyn', twoMessages()))).toEqual([1, 1, 1, 2]);
  expect(ids(await store.createDelivery('newcomer', twoMessages()))).toEqual([1, 1, 1, 2]);
  expect(ids(await store.createDelivery('acme', twoMessages()))).toEqual([7, 7, 10, 11]);
  await expect(store.getDelivery('acme', 1)).resolves.toEqual(earlier.a1);
}
