// The delivery half of the store contract: plain Store calls, no HTTP. Every Store implementation runs it
// (`describeDeliveryContract(name, openStore)`), so it assumes nothing of a particular store:
// - the store is opened before and closed after the tests, and never emptied;
// - each test works on customer ids of its own (unique per run and per test), because a shared store (Neo4j)
//   keeps what earlier tests and runs wrote; ids are therefore compared with each other, never with constants.
// Every assertion reads back what is stored (getDelivery, listDeliveries), not merely what a call returned.
import { randomUUID } from 'node:crypto';
import type { Delivery, DeliveryDraft } from '../../src/domain/deliveries';
import type { TestStore as Store } from '../helpers/store';
import { buildButton, buildCondition, buildDraft, buildMessage, draftPart } from '../helpers/deliveries';
import { interleaved, useStore } from './contract';

const RUN = randomUUID().slice(0, 8);
let counter = 0;
/** A customer id no other test (of this run or any other) uses. */
const newCustomer = (): string => `dlv-${RUN}-${++counter}`;

const ZERO = { iphoneDeliveryCount: 0, androidDeliveryCount: 0, deliveryCount: 0 };

const countsOf = (d: Delivery) => ({
  iphoneDeliveryCount: d.condition.iphoneDeliveryCount,
  androidDeliveryCount: d.condition.androidDeliveryCount,
  deliveryCount: d.condition.deliveryCount,
});

const messageIdsOf = (d: Delivery): number[] => d.message.map((m) => m.messageId);

/** A draft that tries to set every server-owned field; the store must ignore them all. */
function draftWithServerFields(name: string): DeliveryDraft {
  return buildDraft({
    name,
    delivery_id: 999_999,
    condition: buildCondition({ condition_id: 999_999, iphone_delivery_count: 5, android_delivery_count: 6, delivery_count: 11 }),
    message: [buildMessage({ message_id: 999_999 }), buildMessage({ title: 'second', message_id: 999_998 })],
  });
}

export function describeDeliveryContract(name: string, openStore: () => Promise<Store>): void {
  describe(`Store contract, deliveries: ${name}`, () => {
    const store = useStore(openStore);

    describe('create', () => {
      test('when a delivery is created, then it is stored as sent with server-assigned ids and zero counts', async () => {
        const c = newCustomer();
        const draft = draftWithServerFields('first');
        const created = await store().createDelivery(c, draft);

        expect(draftPart(created)).toEqual(draftPart(draft));
        expect(countsOf(created)).toEqual(ZERO);
        expect(created.deliveryId).not.toBe(999_999);
        expect(created.condition.conditionId).not.toBe(999_999);
        expect(messageIdsOf(created)).not.toContain(999_999);
        expect(messageIdsOf(created)).not.toContain(999_998);
        for (const id of [created.deliveryId, created.condition.conditionId, ...messageIdsOf(created)]) {
          expect(Number.isInteger(id) && id >= 1).toBe(true);
        }
        expect(await store().getDelivery(c, created.deliveryId)).toEqual(created);
      });

      test('when deliveries are created one after another, then delivery ids increase and condition and message ids are fresh', async () => {
        const c = newCustomer();
        const created: Delivery[] = [];
        for (let i = 0; i < 4; i++) {
          created.push(await store().createDelivery(c, buildDraft({ name: `d${i}`, message: [buildMessage(), buildMessage({ title: `m${i}` })] })));
        }
        const deliveryIds = created.map((d) => d.deliveryId);
        expect(deliveryIds).toEqual([...deliveryIds].sort((a, b) => a - b));
        expect(new Set(deliveryIds).size).toBe(4);

        const conditionIds = created.map((d) => d.condition.conditionId);
        expect(new Set(conditionIds).size).toBe(4);
        const messageIds = created.flatMap(messageIdsOf);
        expect(new Set(messageIds).size).toBe(8);
        for (const d of created) expect(countsOf(d)).toEqual(ZERO);
      });

      test('when a new customer creates deliveries, then its delivery, condition and message ids start at 1 and follow on without gaps', async () => {
        const c = newCustomer();
        const first = await store().createDelivery(c, buildDraft({ message: [buildMessage(), buildMessage({ title: 'second' })] }));
        const second = await store().createDelivery(c, buildDraft({ message: [buildMessage()] }));
        const third = await store().createDelivery(c, buildDraft({ message: [buildMessage(), buildMessage(), buildMessage()] }));

        expect([first, second, third].map((d) => d.deliveryId)).toEqual([1, 2, 3]);
        expect([first, second, third].map((d) => d.condition.conditionId)).toEqual([1, 2, 3]);
        expect([first, second, third].map(messageIdsOf)).toEqual([[1, 2], [3], [4, 5, 6]]);
        await expect(store().listDeliveries(c, 0, 100)).resolves.toEqual({ items: [first, second, third], total: 3 });
      });

      test("when two customers create deliveries in turn, then each numbers its own, unaffected by the other's", async () => {
        const a = newCustomer();
        const b = newCustomer();
        const ofA: Delivery[] = [];
        const ofB: Delivery[] = [];
        for (let i = 0; i < 3; i++) {
          ofA.push(await store().createDelivery(a, buildDraft({ name: `a${i}` })));
          for (let j = 0; j < 2; j++) ofB.push(await store().createDelivery(b, buildDraft({ name: `b${i}.${j}` })));
        }
        expect(ofA.map((d) => [d.deliveryId, d.condition.conditionId, ...messageIdsOf(d)])).toEqual([
          [1, 1, 1],
          [2, 2, 2],
          [3, 3, 3],
        ]);
        expect(ofB.map((d) => d.deliveryId)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(ofB.map((d) => d.condition.conditionId)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(ofB.flatMap(messageIdsOf)).toEqual([1, 2, 3, 4, 5, 6]);
        // The same number names a different delivery for each customer.
        expect(await store().getDelivery(a, 2)).toEqual(ofA[1]);
        expect(await store().getDelivery(b, 2)).toEqual(ofB[1]);
      });

      test('when many creates for two customers run at once, then each customer gets ids 1 to n, with no gap and no duplicate', async () => {
        const a = newCustomer();
        const b = newCustomer();
        const n = 25;
        const created = await Promise.all(
          Array.from({ length: 2 * n }, (_, i) => {
            const customer = i % 2 === 0 ? a : b;
            return store()
              .createDelivery(customer, buildDraft({ name: `d${i}`, message: [buildMessage(), buildMessage({ title: 'two' })] }))
              .then((delivery) => ({ customer, delivery }));
          }),
        );
        const upTo = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
        const sorted = (ids: number[]) => [...ids].sort((x, y) => x - y);
        for (const customer of [a, b]) {
          const own = created.filter((c) => c.customer === customer).map((c) => c.delivery);
          expect(sorted(own.map((d) => d.deliveryId))).toEqual(upTo(n));
          expect(sorted(own.map((d) => d.condition.conditionId))).toEqual(upTo(n));
          expect(sorted(own.flatMap(messageIdsOf))).toEqual(upTo(2 * n));
          const stored = await store().listDeliveries(customer, 0, 100);
          expect(stored.total).toBe(n);
          expect(stored.items.map((d) => d.deliveryId)).toEqual(upTo(n));
          for (const d of own) expect(stored.items).toContainEqual(d);
        }
      });

      test('when a delivery has been deleted, then a later delivery never gets its ids again', async () => {
        const c = newCustomer();
        const gone = await store().createDelivery(c, buildDraft({ name: 'gone' }));
        expect(await store().deleteDelivery(c, gone.deliveryId)).toBe(true);
        const next = await store().createDelivery(c, buildDraft({ name: 'next' }));

        expect(next.deliveryId).toBeGreaterThan(gone.deliveryId);
        expect(next.condition.conditionId).not.toBe(gone.condition.conditionId);
        for (const id of messageIdsOf(gone)) expect(messageIdsOf(next)).not.toContain(id);
      });
    });

    describe('list', () => {
      test('when a customer has five deliveries, then offset and limit page through them in delivery_id order with the total', async () => {
        const c = newCustomer();
        const created: Delivery[] = [];
        for (let i = 0; i < 5; i++) created.push(await store().createDelivery(c, buildDraft({ name: `d${i}` })));
        const ids = created.map((d) => d.deliveryId).sort((a, b) => a - b);

        const first = await store().listDeliveries(c, 0, 2);
        const second = await store().listDeliveries(c, 2, 2);
        const third = await store().listDeliveries(c, 4, 2);
        const past = await store().listDeliveries(c, 6, 2);

        expect(first.items.map((d) => d.deliveryId)).toEqual(ids.slice(0, 2));
        expect(second.items.map((d) => d.deliveryId)).toEqual(ids.slice(2, 4));
        expect(third.items.map((d) => d.deliveryId)).toEqual(ids.slice(4));
        expect(past.items).toEqual([]);
        for (const page of [first, second, third, past]) expect(page.total).toBe(5);
        expect(first.items[0]).toEqual(created.find((d) => d.deliveryId === ids[0]));
      });

      test('when the limit covers everything, then all deliveries come back whole, in order', async () => {
        const c = newCustomer();
        const a = await store().createDelivery(c, buildDraft({ name: 'a' }));
        const b = await store().createDelivery(c, buildDraft({ name: 'b', message: [buildMessage({ buttons: [] })] }));
        await expect(store().listDeliveries(c, 0, 100)).resolves.toEqual({ items: [a, b], total: 2 });
      });

      test('when a customer has no deliveries, then the list is empty with total 0', async () => {
        await expect(store().listDeliveries(newCustomer(), 0, 20)).resolves.toEqual({ items: [], total: 0 });
      });
    });

    describe('get', () => {
      test('when a delivery is read back, then every field is as created', async () => {
        const c = newCustomer();
        const draft = buildDraft({
          name: 'full',
          priority: 0,
          condition: buildCondition({
            trigger: {
              event_name: ['a', 'b'],
              period: [
                { start: '2025-01-01T09:00:00+09:00', end: '2025-01-02T00:00:00Z' },
                { start: '2025-03-01T00:00:00Z', end: '2025-03-02T00:00:00-05:00' },
              ],
            },
            target: { segmentation_id: 0 },
            category: '',
            is_active: false,
          }),
          message: [buildMessage({ buttons: [buildButton(), buildButton({ id: 'close', name: 'Close', event_name: 'closed' })] })],
        });
        const created = await store().createDelivery(c, draft);
        const read = await store().getDelivery(c, created.deliveryId);
        expect(read).toEqual(created);
        expect(draftPart(read as Delivery)).toEqual(draftPart(draft));
      });

      test('when the delivery id is unknown, then get is undefined', async () => {
        const c = newCustomer();
        const d = await store().createDelivery(c, buildDraft());
        await expect(store().getDelivery(c, d.deliveryId + 1_000_000)).resolves.toBeUndefined();
      });
    });

    describe('replace', () => {
      test('when a delivery is replaced, then the content changes and delivery_id, condition_id and counts stay', async () => {
        const c = newCustomer();
        const original = await store().createDelivery(c, buildDraft({ name: 'before' }));
        const draft = draftWithServerFields('after');
        draft.priority = 99;
        draft.condition.isActive = false;

        const replaced = await store().replaceDelivery(c, original.deliveryId, draft);

        expect(replaced).toBeDefined();
        expect(draftPart(replaced as Delivery)).toEqual(draftPart(draft));
        expect(replaced?.deliveryId).toBe(original.deliveryId);
        expect(replaced?.condition.conditionId).toBe(original.condition.conditionId);
        expect(countsOf(replaced as Delivery)).toEqual(ZERO);
        expect(await store().getDelivery(c, original.deliveryId)).toEqual(replaced);
      });

      test('when messages are sent back with their ids, then they keep them and other messages get fresh ids', async () => {
        const c = newCustomer();
        const other = await store().createDelivery(c, buildDraft({ name: 'other' }));
        const original = await store().createDelivery(c, buildDraft({ message: [buildMessage({ title: 'one' }), buildMessage({ title: 'two' })] }));
        const [one, two] = messageIdsOf(original) as [number, number];
        const foreign = messageIdsOf(other)[0] as number;

        const replaced = (await store().replaceDelivery(
          c,
          original.deliveryId,
          buildDraft({
            message: [
              buildMessage({ title: 'two, edited', message_id: two }),
              buildMessage({ title: 'new' }),
              buildMessage({ title: 'borrowed', message_id: foreign }),
              buildMessage({ title: 'two again', message_id: two }),
            ],
          }),
        )) as Delivery;

        const ids = messageIdsOf(replaced);
        expect(replaced.message.map((m) => m.title)).toEqual(['two, edited', 'new', 'borrowed', 'two again']);
        expect(ids[0]).toBe(two);
        expect(new Set(ids).size).toBe(4);
        for (const fresh of ids.slice(1)) expect([one, two, foreign]).not.toContain(fresh);
        expect(await store().getDelivery(c, original.deliveryId)).toEqual(replaced);
        expect(await store().getDelivery(c, other.deliveryId)).toEqual(other);
      });

      test('when the delivery id is unknown, then replace is undefined and nothing is stored', async () => {
        const c = newCustomer();
        const existing = await store().createDelivery(c, buildDraft());
        await expect(store().replaceDelivery(c, existing.deliveryId + 1_000_000, buildDraft({ name: 'ghost' }))).resolves.toBeUndefined();
        await expect(store().listDeliveries(c, 0, 100)).resolves.toEqual({ items: [existing], total: 1 });
      });
    });

    describe('delete', () => {
      test('when a delivery is deleted, then true, it is gone, and deleting it again is false', async () => {
        const c = newCustomer();
        const kept = await store().createDelivery(c, buildDraft({ name: 'kept' }));
        const gone = await store().createDelivery(c, buildDraft({ name: 'gone' }));

        await expect(store().deleteDelivery(c, gone.deliveryId)).resolves.toBe(true);
        await expect(store().getDelivery(c, gone.deliveryId)).resolves.toBeUndefined();
        await expect(store().listDeliveries(c, 0, 100)).resolves.toEqual({ items: [kept], total: 1 });
        await expect(store().deleteDelivery(c, gone.deliveryId)).resolves.toBe(false);
        await expect(store().replaceDelivery(c, gone.deliveryId, buildDraft())).resolves.toBeUndefined();
      });

      // A write that waits for a delivery while a delete of it commits must find no delivery (Neo4j reads such a
      // node back with no properties), never fail, and never bring the delivery back.
      test('when deletes and replacements of the same deliveries race, then exactly one delete succeeds for each, every call settles, and nothing is left of them', async () => {
        const c = newCustomer();
        const kept = await store().createDelivery(c, buildDraft({ name: 'kept' }));
        const doomed: Delivery[] = [];
        for (let i = 0; i < 6; i++) doomed.push(await store().createDelivery(c, buildDraft({ name: `doomed ${i}` })));

        const calls = doomed.flatMap((d) => [
          ...Array.from(
            { length: 4 },
            () => () =>
              store()
                .deleteDelivery(c, d.deliveryId)
                .then((deleted) => ({ id: d.deliveryId, deleted })),
          ),
          ...Array.from(
            { length: 8 },
            (_, j) => () =>
              store()
                .replaceDelivery(c, d.deliveryId, buildDraft({ name: `replaced ${j}` }))
                .then((replaced) => ({ id: d.deliveryId, replaced })),
          ),
        ]);
        // Interleaved, so that each delivery's deletes and replacements reach the store together.
        const outcomes = await Promise.allSettled(interleaved(calls, 37).map((call) => call()));

        expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
        const settled = outcomes.map((o) => (o as PromiseFulfilledResult<{ id: number; deleted?: boolean; replaced?: Delivery }>).value);
        for (const d of doomed) {
          const own = settled.filter((o) => o.id === d.deliveryId);
          expect(own.filter((o) => o.deleted === true)).toHaveLength(1);
          expect(own.filter((o) => o.deleted === false)).toHaveLength(3);
          for (const o of own.filter((r) => r.replaced !== undefined)) {
            expect(o.replaced?.deliveryId).toBe(d.deliveryId);
            expect(o.replaced?.condition.conditionId).toBe(d.condition.conditionId);
          }
          await expect(store().getDelivery(c, d.deliveryId)).resolves.toBeUndefined();
          await expect(store().replaceDelivery(c, d.deliveryId, buildDraft())).resolves.toBeUndefined();
          await expect(store().deleteDelivery(c, d.deliveryId)).resolves.toBe(false);
        }
        await expect(store().listDeliveries(c, 0, 100)).resolves.toEqual({ items: [kept], total: 1 });
      });
    });

    describe('customer isolation', () => {
      test("when customer B lists, gets, replaces or deletes, then it never sees nor changes A's deliveries", async () => {
        const a = newCustomer();
        const b = newCustomer();
        // A has delivery ids 1 and 2, B only 1: B's 1 is its own, and B has no 2.
        const firstOfA = await store().createDelivery(a, buildDraft({ name: 'of A' }));
        const ofA = await store().createDelivery(a, buildDraft({ name: 'of A, second' }));
        const ofB = await store().createDelivery(b, buildDraft({ name: 'of B' }));

        await expect(store().listDeliveries(b, 0, 100)).resolves.toEqual({ items: [ofB], total: 1 });
        await expect(store().getDelivery(b, ofA.deliveryId)).resolves.toBeUndefined();
        await expect(store().replaceDelivery(b, ofA.deliveryId, buildDraft({ name: 'hijacked' }))).resolves.toBeUndefined();
        await expect(store().deleteDelivery(b, ofA.deliveryId)).resolves.toBe(false);
        await expect(store().getDelivery(b, firstOfA.deliveryId)).resolves.toEqual(ofB);
        const replacedOfB = await store().replaceDelivery(b, firstOfA.deliveryId, buildDraft({ name: 'of B, replaced' }));
        await expect(store().deleteDelivery(b, firstOfA.deliveryId)).resolves.toBe(true);

        expect(replacedOfB?.name).toBe('of B, replaced');
        await expect(store().listDeliveries(a, 0, 100)).resolves.toEqual({ items: [firstOfA, ofA], total: 2 });
        await expect(store().listDeliveries(b, 0, 100)).resolves.toEqual({ items: [], total: 0 });
      });

      test("when B replaces its own delivery with a message_id of A's, then A's message keeps its id and B's gets a fresh one", async () => {
        const a = newCustomer();
        const b = newCustomer();
        // A's message ids are 1 to 3, B's only 1: A's 3 names no message of B.
        const ofA = await store().createDelivery(a, buildDraft({ message: [buildMessage(), buildMessage(), buildMessage()] }));
        const ofB = await store().createDelivery(b, buildDraft());
        const foreign = messageIdsOf(ofA)[2] as number;

        const replaced = (await store().replaceDelivery(b, ofB.deliveryId, buildDraft({ message: [buildMessage({ message_id: foreign })] }))) as Delivery;

        expect(messageIdsOf(replaced)).not.toContain(foreign);
        expect(messageIdsOf(replaced)).not.toContain(messageIdsOf(ofB)[0]);
        await expect(store().getDelivery(a, ofA.deliveryId)).resolves.toEqual(ofA);
      });
    });
  });
}
