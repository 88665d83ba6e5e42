// The showing half of the store contract (docs/deliveries.md): eligibility, recordImpression and
// pruneImpressionKeys, and what replaceDelivery, deleteDelivery, node writes and erase do to impressions, as plain
// Store calls, no HTTP. Every Store implementation runs it (`describeShowingContract(name, openStore)`), so it
// assumes nothing of a particular store:
// - the store is opened before and closed after the tests, and never emptied;
// - each test works on customer ids of its own (unique per run and per test), because a shared store (Neo4j)
//   keeps what earlier tests and runs wrote. The one exception is pruneImpressionKeys, which is not per customer:
//   its test only asserts on the keys it stored itself, with instants no other test uses.
// Every assertion reads back what is stored (getDelivery, listDeliveries, eligibility), not merely what a call returned.
import type { Delivery, ImpressionOutcome, ImpressionRequest, PersonCounts, PersonRequest, Platform } from '../../src/domain/deliveries';
import { type DomainError } from '../../src/domain/errors';
import type { EraseRequest, IdPair, SchemaRecord } from '../../src/domain/model';
import type { CapName } from '../../src/domain/showing';
import { hashToken } from '../../src/domain/tokens';
import { checkedImpression, checkedPerson } from '../helpers/checked-showing';
import type { TestStore as Store } from '../helpers/store';
import { buildCondition, buildDraft, type ConditionBody } from '../helpers/deliveries';
import { id, member, MEMBER, newCustomer, useStore } from './contract';
import { seeded } from '../helpers/seeded';

// ---- fixtures

/** The calendar days impressions are counted on (ImpressionRequest.day, the `day` of eligibility). */
const DAY = '2026-12-01';
const NEXT_DAY = '2026-12-02';

/** A cap no test reaches. */
const NO_CAP = 1_000_000;

type Caps = Partial<Pick<ConditionBody, 'max_delivery_count' | 'max_total_count' | 'max_total_count_per_day'>>;

/** MEMBER plus an ip that never links (docs/keeping-people-apart.md). */
const MEMBER_WITH_IP: SchemaRecord = { schemaId: 'member', idTypes: [...MEMBER.idTypes, { type: 'ip', secure: false, links: false }] };

/** MEMBER whose device never links (a shared family tablet): two people holding it stay two people. */
const MEMBER_SHARED_DEVICE: SchemaRecord = {
  schemaId: 'member',
  idTypes: MEMBER.idTypes.map((t) => (t.type === 'device' ? { ...t, links: false } : t)),
};

const ZERO: PersonCounts = { total: 0, today: 0 };
const counts = (total: number, today: number): PersonCounts => ({ total, today });

/** The three counters the store keeps in a delivery. */
const countersOf = (d: Delivery | undefined) => ({
  deliveryCount: d?.condition.deliveryCount,
  iphoneDeliveryCount: d?.condition.iphoneDeliveryCount,
  androidDeliveryCount: d?.condition.androidDeliveryCount,
});
const counters = (deliveryCount: number, iphoneDeliveryCount = 0, androidDeliveryCount = 0) => ({
  deliveryCount,
  iphoneDeliveryCount,
  androidDeliveryCount,
});

const byDeliveryId = (a: Delivery, b: Delivery): number => a.deliveryId - b.deliveryId;

/** `code/cap` of a rejection: what the races tally. */
const refusal = (reason: unknown): string => {
  const e = reason as DomainError;
  return `${e.code}/${e.members?.cap ?? '-'}`;
};

export function describeShowingContract(name: string, openStore: () => Promise<Store>): void {
  describe(`Store contract, showing messages: ${name}`, () => {
    const store = useStore(openStore);

    async function customerWith(...schemas: SchemaRecord[]): Promise<string> {
      const c = newCustomer();
      for (const schema of schemas) await store().putSchema(c, schema);
      return c;
    }

    /** A delivery of `customerId` with the caps given and none reachable otherwise. */
    const deliveryWith = (customerId: string, caps: Caps = {}, name = 'shown'): Promise<Delivery> =>
      store().createDelivery(
        customerId,
        buildDraft({ name, condition: buildCondition({ max_delivery_count: NO_CAP, max_total_count: NO_CAP, max_total_count_per_day: NO_CAP, ...caps }) }),
      );

    /** The person of `user`, as the service asks about them, with generous bounds unless overridden. */
    const personOf = (customerId: string, user: IdPair, overrides: Partial<PersonRequest> = {}): PersonRequest => ({
      customerId,
      user,
      unlinkedTypes: [],
      maxNodes: 10_000,
      maxIds: 50_000,
      ...overrides,
    });

    interface Shown {
      platform?: Platform;
      day?: string;
      key?: string;
      receivedAt?: string;
      person?: Partial<PersonRequest>;
    }

    /** One display of `deliveryId` to `user`: platform other, on DAY, received now, unless told otherwise. */
    const impression = (customerId: string, deliveryId: number, user: IdPair, o: Shown = {}): ImpressionRequest => ({
      person: personOf(customerId, user, o.person),
      deliveryId,
      platform: o.platform ?? 'other',
      day: o.day ?? DAY,
      ...(o.key !== undefined ? { idempotencyKey: o.key } : {}),
      receivedAt: o.receivedAt ?? new Date().toISOString(),
    });

    const record = (request: ImpressionRequest): Promise<ImpressionOutcome> => store().recordImpression(checkedImpression(request));

    /** Records `times` displays, one after the other. */
    async function show(customerId: string, deliveryId: number, user: IdPair, times = 1, o: Shown = {}): Promise<void> {
      for (let i = 0; i < times; i += 1) await record(impression(customerId, deliveryId, user, o));
    }

    /** The person's counts of every delivery they saw, read back with eligibility, by delivery id. */
    async function seenBy(customerId: string, user: IdPair, day = DAY, overrides: Partial<PersonRequest> = {}): Promise<Array<[number, PersonCounts]>> {
      const { person } = await store().eligibility(checkedPerson(personOf(customerId, user, overrides), day));
      return [...person.entries()].sort((a, b) => a[0] - b[0]);
    }

    /** The person's counts of one delivery (zeros when they saw none), read back with eligibility. */
    async function countsFor(customerId: string, user: IdPair, deliveryId: number, day = DAY, overrides: Partial<PersonRequest> = {}): Promise<PersonCounts> {
      const { person } = await store().eligibility(checkedPerson(personOf(customerId, user, overrides), day));
      return person.get(deliveryId) ?? ZERO;
    }

    /** The delivery's counters as getDelivery reads them back. */
    const storedCounters = async (customerId: string, deliveryId: number) => countersOf(await store().getDelivery(customerId, deliveryId));

    /** Sweeps until nothing deleted deliveries left is left (the store is shared: other tests' too); answers how many rows went. */
    async function sweepAll(): Promise<number> {
      let swept = 0;
      for (let rounds = 0; ; rounds += 1) {
        expect(rounds).toBeLessThan(100);
        const batch = await store().sweepDeletedDeliveries(1000);
        swept += batch;
        if (batch < 1000) return swept;
      }
    }

    // ------------------------------------------------------------------ eligibility
    describe('eligibility', () => {
      test('when the customer has no deliveries, then eligibility gives no delivery and no counts, whatever another customer recorded for the same ID', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        const other = await customerWith(MEMBER);
        const ofOther = await deliveryWith(other);
        await show(other, ofOther.deliveryId, id('member_id', 'm1'), 2);

        const state = await store().eligibility(checkedPerson(personOf(c, id('member_id', 'm1')), DAY));
        expect(state.deliveries).toEqual([]);
        expect([...state.person.entries()]).toEqual([]);
        expect(await seenBy(other, id('member_id', 'm1'))).toEqual([[ofOther.deliveryId, counts(2, 2)]]);
      });

      test('when the person saw nothing, then every delivery of the customer comes with its stored counts, and no person counts', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        const created = [await deliveryWith(c, {}, 'a'), await deliveryWith(c, {}, 'b'), await deliveryWith(c, {}, 'c')];
        // Someone else saw the second one twice: its counts are not zero, and not the person's.
        await show(c, created[1]?.deliveryId ?? 0, id('member_id', 'someone-else'), 2, { platform: 'ios' });

        const state = await store().eligibility(checkedPerson(personOf(c, id('member_id', 'm1')), DAY));
        const listed = await store().listDeliveries(c, 0, 100);
        expect(listed.total).toBe(3);
        expect([...state.deliveries].sort(byDeliveryId)).toEqual(listed.items);
        expect(countersOf(state.deliveries.find((d) => d.deliveryId === created[1]?.deliveryId))).toEqual(counters(2, 2, 0));
        expect([...state.person.entries()]).toEqual([]);
        // An ID no node holds is a person too, who saw nothing.
        expect(await seenBy(c, id('cookie', 'nobody-holds-it'))).toEqual([]);
      });

      test('when a person saw deliveries through two linked IDs, then each delivery counts the impressions of both, whichever ID asks', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('cookie', 'k1')]);
        const a = await deliveryWith(c, {}, 'a');
        const b = await deliveryWith(c, {}, 'b');
        await show(c, a.deliveryId, id('member_id', 'm1'), 2);
        await show(c, a.deliveryId, id('device', 'd1'), 1);
        await show(c, a.deliveryId, id('device', 'd1'), 1, { day: NEXT_DAY });
        await show(c, b.deliveryId, id('cookie', 'k1'), 1, { day: NEXT_DAY });

        for (const user of [id('member_id', 'm1'), id('device', 'd1'), id('cookie', 'k1')]) {
          expect([user.type, await seenBy(c, user, DAY)]).toEqual([
            user.type,
            [
              [a.deliveryId, counts(4, 3)],
              [b.deliveryId, counts(1, 0)],
            ],
          ]);
          expect([user.type, await seenBy(c, user, NEXT_DAY)]).toEqual([
            user.type,
            [
              [a.deliveryId, counts(4, 1)],
              [b.deliveryId, counts(1, 1)],
            ],
          ]);
        }
        const state = await store().eligibility(checkedPerson(personOf(c, id('cookie', 'k1')), DAY));
        expect(state.deliveries.map((d) => [d.deliveryId, d.condition.deliveryCount]).sort((x, y) => (x[0] ?? 0) - (y[0] ?? 0))).toEqual([
          [a.deliveryId, 4],
          [b.deliveryId, 1],
        ]);
      });

      test('when impressions fall on several days, then today counts only those of the day asked about', async () => {
        const c = await customerWith(MEMBER);
        const d = await deliveryWith(c);
        const user = id('member_id', 'm1');
        await show(c, d.deliveryId, user, 1, { day: '2026-12-31' });
        await show(c, d.deliveryId, user, 2, { day: '2027-01-01' });
        await show(c, d.deliveryId, user, 3, { day: '2027-01-02' });

        expect(await countsFor(c, user, d.deliveryId, '2026-12-31')).toEqual(counts(6, 1));
        expect(await countsFor(c, user, d.deliveryId, '2027-01-01')).toEqual(counts(6, 2));
        expect(await countsFor(c, user, d.deliveryId, '2027-01-02')).toEqual(counts(6, 3));
        expect(await countsFor(c, user, d.deliveryId, '2027-01-03')).toEqual(counts(6, 0));
        expect(await countsFor(c, user, d.deliveryId, '2026-01-01')).toEqual(counts(6, 0));
      });
    });

    // ------------------------------------------------------------------ recordImpression
    describe('recordImpression', () => {
      test("when the delivery is unknown (or another customer's), then delivery_not_found, and nothing is counted", async () => {
        const c = await customerWith(MEMBER);
        const d = await deliveryWith(c);
        const user = id('member_id', 'm1');
        await show(c, d.deliveryId, user);
        const other = await customerWith(MEMBER);
        const ofOther = await deliveryWith(other);
        await deliveryWith(other);

        await expect(record(impression(c, d.deliveryId + 1_000, user))).rejects.toMatchObject({ code: 'delivery_not_found' });
        // The other customer has a delivery of that number too: it is not this customer's.
        await expect(record(impression(c, d.deliveryId + 1, user))).rejects.toMatchObject({ code: 'delivery_not_found' });
        await expect(record(impression(c, d.deliveryId + 1, user, { key: 'k-unknown' }))).rejects.toMatchObject({ code: 'delivery_not_found' });

        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(1));
        expect(await seenBy(c, user)).toEqual([[d.deliveryId, counts(1, 1)]]);
        expect(await storedCounters(other, ofOther.deliveryId)).toEqual(counters(0));
        expect(await storedCounters(other, ofOther.deliveryId + 1)).toEqual(counters(0));
        expect(await seenBy(other, user)).toEqual([]);
      });

      test('when displays are counted, then delivery_count counts all, iphone_delivery_count the ios ones, android_delivery_count the android ones, and get, list and eligibility show them', async () => {
        const c = await customerWith(MEMBER);
        const d = await deliveryWith(c);
        const untouched = await deliveryWith(c, {}, 'untouched');
        const platforms: Platform[] = ['ios', 'android', 'other', 'ios', 'ios', 'android', 'other'];
        for (const [i, platform] of platforms.entries()) await show(c, d.deliveryId, id('member_id', `m${i}`), 1, { platform });

        const expected = counters(7, 3, 2);
        const read = await store().getDelivery(c, d.deliveryId);
        expect(countersOf(read)).toEqual(expected);
        // Only the counters changed.
        expect(read).toEqual({ ...d, condition: { ...d.condition, ...expected } });
        const listed = await store().listDeliveries(c, 0, 100);
        expect(listed.items.map(countersOf)).toEqual([expected, counters(0)]);
        expect(listed.items[0]).toEqual(read);
        const state = await store().eligibility(checkedPerson(personOf(c, id('member_id', 'm0')), DAY));
        expect([...state.deliveries].sort(byDeliveryId)).toEqual(listed.items);
        expect(await store().getDelivery(c, untouched.deliveryId)).toEqual(untouched);
      });

      test("when a display is counted, then it answers the counts right after it: the delivery's, and the person's in all and on its day", async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'p1')), [id('device', 'd1')]);
        const d = await deliveryWith(c);
        const p1 = id('member_id', 'p1');
        const p1Device = id('device', 'd1');
        const p2 = id('member_id', 'p2');
        const answers = [
          await record(impression(c, d.deliveryId, p1)),
          await record(impression(c, d.deliveryId, p1Device, { day: NEXT_DAY, platform: 'ios' })),
          await record(impression(c, d.deliveryId, p2)),
          await record(impression(c, d.deliveryId, p1Device)),
          await record(impression(c, d.deliveryId, p1, { day: NEXT_DAY })),
        ];
        const answer = (delivery_count: number, person_total: number, person_today: number): ImpressionOutcome => ({
          answer: { deliveryId: d.deliveryId, deliveryCount: delivery_count, personTotal: person_total, personToday: person_today },
          replayed: false,
        });
        expect(answers).toEqual([answer(1, 1, 1), answer(2, 2, 1), answer(3, 1, 1), answer(4, 3, 2), answer(5, 4, 2)]);
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(5, 1, 0));
        expect(await countsFor(c, p1, d.deliveryId, DAY)).toEqual(counts(4, 2));
        expect(await countsFor(c, p1Device, d.deliveryId, NEXT_DAY)).toEqual(counts(4, 2));
        expect(await countsFor(c, p2, d.deliveryId, DAY)).toEqual(counts(1, 1));
      });

      test("when a display is checked, then the caps are judged on the delivery's live counts and the person's counts before this one", async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'p1')), [id('device', 'd1')]);
        const d = await deliveryWith(c, { max_delivery_count: 6, max_total_count: 4 });
        await show(c, d.deliveryId, id('member_id', 'p1'), 2, { platform: 'android' });
        await show(c, d.deliveryId, id('device', 'd1'), 1, { day: NEXT_DAY });
        await show(c, d.deliveryId, id('member_id', 'p2'), 1, { platform: 'ios' });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(4, 1, 2));

        // The person of d1 (and p1) has 3 in all, 2 of them on DAY.
        await expect(record(impression(c, d.deliveryId, id('device', 'd1')))).resolves.toEqual({
          answer: { deliveryId: d.deliveryId, deliveryCount: 5, personTotal: 4, personToday: 3 },
          replayed: false,
        });
        await expect(record(impression(c, d.deliveryId, id('member_id', 'p1'), { day: NEXT_DAY }))).rejects.toMatchObject({
          code: 'cap_reached',
          members: { cap: 'max_total_count' },
        });
        await expect(record(impression(c, d.deliveryId, id('member_id', 'p2')))).resolves.toMatchObject({ answer: { deliveryCount: 6, personTotal: 2 } });
        await expect(record(impression(c, d.deliveryId, id('member_id', 'p3')))).rejects.toMatchObject({
          code: 'cap_reached',
          members: { cap: 'max_delivery_count' },
        });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(6, 1, 2));
      });

      test('when a delivery is replaced, then its counts stay, impressions go on counting, and its new caps apply', async () => {
        const c = await customerWith(MEMBER);
        const d = await deliveryWith(c);
        const user = id('member_id', 'm1');
        await show(c, d.deliveryId, user, 1, { platform: 'ios' });
        await show(c, d.deliveryId, user, 1, { platform: 'android' });
        await show(c, d.deliveryId, user, 1);

        const replaced = await store().replaceDelivery(
          c,
          d.deliveryId,
          buildDraft({ name: 'replaced', condition: buildCondition({ max_delivery_count: NO_CAP, max_total_count: 4, max_total_count_per_day: NO_CAP }) }),
        );
        expect(replaced?.name).toBe('replaced');
        expect(countersOf(replaced)).toEqual(counters(3, 1, 1));
        expect(await store().getDelivery(c, d.deliveryId)).toEqual(replaced);
        expect(await seenBy(c, user)).toEqual([[d.deliveryId, counts(3, 3)]]);

        await expect(record(impression(c, d.deliveryId, user, { platform: 'ios' }))).resolves.toEqual({
          answer: { deliveryId: d.deliveryId, deliveryCount: 4, personTotal: 4, personToday: 4 },
          replayed: false,
        });
        await expect(record(impression(c, d.deliveryId, user))).rejects.toMatchObject({ code: 'cap_reached', members: { cap: 'max_total_count' } });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(4, 2, 1));
        expect(await seenBy(c, user)).toEqual([[d.deliveryId, counts(4, 4)]]);
      });

      test('when two customers have a delivery of the same number and a person of the same ID, then each counts its own', async () => {
        const a = await customerWith(MEMBER);
        const b = await customerWith(MEMBER);
        const ofA = await deliveryWith(a);
        const ofB = await deliveryWith(b);
        expect(ofB.deliveryId).toBe(ofA.deliveryId);
        const user = id('member_id', 'm1');
        await store().createNode(seeded(member(a, 'm1')), []);
        await store().createNode(seeded(member(b, 'm1')), []);
        await show(a, ofA.deliveryId, user, 3);
        await show(b, ofB.deliveryId, user, 1, { platform: 'ios' });

        expect(await storedCounters(a, ofA.deliveryId)).toEqual(counters(3));
        expect(await storedCounters(b, ofB.deliveryId)).toEqual(counters(1, 1));
        expect(await seenBy(a, user)).toEqual([[ofA.deliveryId, counts(3, 3)]]);
        expect(await seenBy(b, user)).toEqual([[ofB.deliveryId, counts(1, 1)]]);
      });
    });

    // ------------------------------------------------------------------ refused over a cap
    describe('a refused display', () => {
      test.each<[CapName, Caps]>([
        ['max_delivery_count', { max_delivery_count: 3 }],
        ['max_total_count', { max_total_count: 3 }],
        ['max_total_count_per_day', { max_total_count_per_day: 3 }],
      ])('when a display would pass %s, then cap_reached naming it, and nothing is counted', async (cap, caps) => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        const d = await deliveryWith(c, caps);
        const m1 = id('member_id', 'm1');
        const d1 = id('device', 'd1');
        // The cap is reached with the third display: by others for the delivery cap, by the person otherwise.
        const third = cap === 'max_delivery_count' ? id('member_id', 'someone-else') : d1;
        await show(c, d.deliveryId, m1);
        await show(c, d.deliveryId, d1, 1, { platform: 'ios' });
        await show(c, d.deliveryId, third, 1, { platform: 'android' });
        const personBefore = await seenBy(c, m1);

        await expect(record(impression(c, d.deliveryId, m1, { platform: 'ios' }))).rejects.toMatchObject({ code: 'cap_reached', members: { cap } });
        await expect(record(impression(c, d.deliveryId, d1, { platform: 'android', key: 'k-refused' }))).rejects.toMatchObject({
          code: 'cap_reached',
          members: { cap },
        });

        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(3, 1, 1));
        expect(await seenBy(c, m1)).toEqual(personBefore);
        if (cap === 'max_total_count_per_day') {
          // Another day is another count.
          await expect(record(impression(c, d.deliveryId, m1, { day: NEXT_DAY }))).resolves.toMatchObject({
            answer: { deliveryCount: 4, personTotal: 4, personToday: 1 },
          });
        } else if (cap === 'max_total_count') {
          // Another person is not capped.
          await expect(record(impression(c, d.deliveryId, id('member_id', 'm2')))).resolves.toMatchObject({ answer: { deliveryCount: 4, personTotal: 1 } });
        } else {
          // Nobody is shown it any more.
          await expect(record(impression(c, d.deliveryId, id('member_id', 'm2')))).rejects.toMatchObject({ code: 'cap_reached', members: { cap } });
        }
      });
    });

    // ------------------------------------------------------------------ idempotency keys
    describe('idempotency keys', () => {
      test('when a key is used again for the same delivery, then the first answer comes back, replayed, and nothing more is counted', async () => {
        const c = await customerWith(MEMBER);
        const d = await deliveryWith(c);
        const user = id('member_id', 'm1');
        const first = await record(impression(c, d.deliveryId, user, { key: 'k-1', platform: 'ios' }));
        expect(first).toEqual({ answer: { deliveryId: d.deliveryId, deliveryCount: 1, personTotal: 1, personToday: 1 }, replayed: false });
        // Others count meanwhile: the repeat still answers what the first answer said.
        await show(c, d.deliveryId, user, 2);

        const again = await record(impression(c, d.deliveryId, user, { key: 'k-1', platform: 'ios' }));
        const otherwise = await record(impression(c, d.deliveryId, id('member_id', 'm2'), { key: 'k-1', platform: 'android', day: NEXT_DAY }));
        expect(again).toEqual({ answer: first.answer, replayed: true });
        expect(otherwise).toEqual({ answer: first.answer, replayed: true });

        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(3, 1, 0));
        expect(await seenBy(c, user)).toEqual([[d.deliveryId, counts(3, 3)]]);
        expect(await seenBy(c, id('member_id', 'm2'), NEXT_DAY)).toEqual([]);
      });

      test('when a key is used again once the cap is reached, then the first answer comes back rather than cap_reached', async () => {
        const c = await customerWith(MEMBER);
        const d = await deliveryWith(c, { max_total_count: 1 });
        const user = id('member_id', 'm1');
        const first = await record(impression(c, d.deliveryId, user, { key: 'k-capped' }));
        await expect(record(impression(c, d.deliveryId, user))).rejects.toMatchObject({ code: 'cap_reached', members: { cap: 'max_total_count' } });

        await expect(record(impression(c, d.deliveryId, user, { key: 'k-capped' }))).resolves.toEqual({ answer: first.answer, replayed: true });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(1));
        expect(await seenBy(c, user)).toEqual([[d.deliveryId, counts(1, 1)]]);
      });

      test('when a key is used for another delivery, or by another customer, then that display counts', async () => {
        const c = await customerWith(MEMBER);
        const a = await deliveryWith(c, {}, 'a');
        const b = await deliveryWith(c, {}, 'b');
        const other = await customerWith(MEMBER);
        const ofOther = await deliveryWith(other);
        expect(ofOther.deliveryId).toBe(a.deliveryId);
        const user = id('member_id', 'm1');

        const onA = await record(impression(c, a.deliveryId, user, { key: 'k-shared' }));
        const onB = await record(impression(c, b.deliveryId, user, { key: 'k-shared' }));
        const ofTheOther = await record(impression(other, ofOther.deliveryId, user, { key: 'k-shared' }));
        for (const [outcome, deliveryId] of [
          [onA, a.deliveryId],
          [onB, b.deliveryId],
          [ofTheOther, ofOther.deliveryId],
        ] as const) {
          expect(outcome).toEqual({ answer: { deliveryId: deliveryId, deliveryCount: 1, personTotal: 1, personToday: 1 }, replayed: false });
        }
        expect(await storedCounters(c, a.deliveryId)).toEqual(counters(1));
        expect(await storedCounters(c, b.deliveryId)).toEqual(counters(1));
        expect(await storedCounters(other, ofOther.deliveryId)).toEqual(counters(1));
        expect(await seenBy(c, user)).toEqual([
          [a.deliveryId, counts(1, 1)],
          [b.deliveryId, counts(1, 1)],
        ]);
      });

      test('when a display with a key is refused, then the key is not kept: a retry once the cap is raised counts, and its repeat replays', async () => {
        const c = await customerWith(MEMBER);
        const draft = (maxTotal: number) =>
          buildDraft({ condition: buildCondition({ max_delivery_count: NO_CAP, max_total_count: maxTotal, max_total_count_per_day: NO_CAP }) });
        const d = await store().createDelivery(c, draft(1));
        const user = id('member_id', 'm1');
        await show(c, d.deliveryId, user);

        await expect(record(impression(c, d.deliveryId, user, { key: 'k-retry' }))).rejects.toMatchObject({
          code: 'cap_reached',
          members: { cap: 'max_total_count' },
        });
        await expect(record(impression(c, d.deliveryId, user, { key: 'k-retry' }))).rejects.toMatchObject({ code: 'cap_reached' });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(1));

        await store().replaceDelivery(c, d.deliveryId, draft(2));
        const retried = await record(impression(c, d.deliveryId, user, { key: 'k-retry' }));
        expect(retried).toEqual({ answer: { deliveryId: d.deliveryId, deliveryCount: 2, personTotal: 2, personToday: 2 }, replayed: false });
        await expect(record(impression(c, d.deliveryId, user, { key: 'k-retry' }))).resolves.toEqual({ answer: retried.answer, replayed: true });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(2));
        expect(await seenBy(c, user)).toEqual([[d.deliveryId, counts(2, 2)]]);
      });

      test('when keys are pruned before an instant, then those received earlier go (a repeat then counts again) and those received at or after it stay', async () => {
        const c = await customerWith(MEMBER);
        const d = await deliveryWith(c);
        const user = id('member_id', 'm1');
        const cut = '2001-01-02T00:00:00.000Z';
        const keyed = (key: string, receivedAt: string) => impression(c, d.deliveryId, user, { key, receivedAt });
        const old = await Promise.all(['old-1', 'old-2', 'old-3'].map(async (k) => record(keyed(k, '2001-01-01T00:00:00.000Z'))));
        const atCut = await record(keyed('at-cut', cut));
        const recent = await record(keyed('recent', '2001-01-03T00:00:00.000Z'));
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(5));

        // Nothing of this test is that old.
        await expect(store().pruneImpressionKeys('1990-01-01T00:00:00.000Z', 1000)).resolves.toBe(0);
        await expect(record(keyed('old-1', new Date().toISOString()))).resolves.toEqual({ answer: old[0]?.answer, replayed: true });
        // At least this test's three old keys are there to prune: exactly `limit` go.
        await expect(store().pruneImpressionKeys(cut, 2)).resolves.toBe(2);
        let rounds = 0;
        while ((await store().pruneImpressionKeys(cut, 1000)) > 0) {
          rounds += 1;
          expect(rounds).toBeLessThan(100);
        }
        await expect(store().pruneImpressionKeys(cut, 1000)).resolves.toBe(0);

        for (const key of ['old-1', 'old-2', 'old-3']) {
          const repeat = await record(keyed(key, new Date().toISOString()));
          expect([key, repeat.replayed]).toEqual([key, false]);
        }
        await expect(record(keyed('at-cut', new Date().toISOString()))).resolves.toEqual({ answer: atCut.answer, replayed: true });
        await expect(record(keyed('recent', new Date().toISOString()))).resolves.toEqual({ answer: recent.answer, replayed: true });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(8));
        expect(await seenBy(c, user)).toEqual([[d.deliveryId, counts(8, 8)]]);
        // The keys given again were kept anew: their repeats replay.
        await expect(record(keyed('old-2', new Date().toISOString()))).resolves.toMatchObject({ replayed: true, answer: { deliveryCount: 7 } });
      });

      // Several service processes on one Neo4j each prune every hour: a prune that waited for a key another one
      // deleted must not count it again.
      test('when prunes of keys race, then each key is counted once, by the prune that deleted it', async () => {
        const c = await customerWith(MEMBER);
        const d = await deliveryWith(c);
        const user = id('member_id', 'm1');
        // Instants no other test uses: these keys are all the prunes below can find.
        const keys = Array.from({ length: 30 }, (_, i) => `race-${i}`);
        for (const [i, key] of keys.entries()) {
          await record(impression(c, d.deliveryId, user, { key, receivedAt: new Date(Date.UTC(1993, 0, 1, 0, 0, i)).toISOString() }));
        }
        const cut = '1994-01-01T00:00:00.000Z';

        const raced = await Promise.all(Array.from({ length: 6 }, () => store().pruneImpressionKeys(cut, 10)));
        let rest = 0;
        for (let n = await store().pruneImpressionKeys(cut, 1000); n > 0; n = await store().pruneImpressionKeys(cut, 1000)) rest += n;

        expect(raced.reduce((sum, n) => sum + n, 0) + rest).toBe(keys.length);
        // The keys are gone: one given again counts again.
        const repeat = await record(impression(c, d.deliveryId, user, { key: 'race-0', receivedAt: new Date().toISOString() }));
        expect(repeat.replayed).toBe(false);
      });
    });

    // ------------------------------------------------------------------ people change
    describe('people change', () => {
      test('when two people are linked, then each ID of either sees the sum, and when the link is removed, each has their own again', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'a')), [id('cookie', 'ka')]);
        await store().createNode(seeded(member(c, 'b')), [id('cookie', 'kb')]);
        const d = await deliveryWith(c, { max_total_count: 6 });
        const a = id('member_id', 'a');
        const b = id('member_id', 'b');
        await show(c, d.deliveryId, a, 2);
        await show(c, d.deliveryId, id('cookie', 'kb'), 3, { day: NEXT_DAY });
        expect(await countsFor(c, a, d.deliveryId)).toEqual(counts(2, 2));
        expect(await countsFor(c, b, d.deliveryId)).toEqual(counts(3, 0));

        // b's node takes a's cookie: one person.
        await store().insertIds(seeded(member(c, 'b')), [id('cookie', 'ka')]);
        for (const user of [a, b, id('cookie', 'ka'), id('cookie', 'kb')]) {
          expect([user, await countsFor(c, user, d.deliveryId)]).toEqual([user, counts(5, 2)]);
        }
        await expect(record(impression(c, d.deliveryId, b))).resolves.toMatchObject({ answer: { personTotal: 6, personToday: 3 } });
        await expect(record(impression(c, d.deliveryId, a))).rejects.toMatchObject({ code: 'cap_reached', members: { cap: 'max_total_count' } });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(6));

        // The link goes: two people again, each with what was recorded against their own IDs.
        await store().removeId(seeded(member(c, 'b')), id('cookie', 'ka'));
        expect(await countsFor(c, a, d.deliveryId)).toEqual(counts(2, 2));
        expect(await countsFor(c, id('cookie', 'ka'), d.deliveryId)).toEqual(counts(2, 2));
        expect(await countsFor(c, b, d.deliveryId)).toEqual(counts(4, 1));
        await expect(record(impression(c, d.deliveryId, a))).resolves.toMatchObject({ answer: { deliveryCount: 7, personTotal: 3, personToday: 3 } });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(7));
      });

      test('when two people hold the same ID of a links:false type, then they stay two people; without the option they would be one', async () => {
        const c = await customerWith(MEMBER_WITH_IP);
        await store().createNode(seeded(member(c, 'a')), [id('ip', '10.0.0.1')]);
        await store().createNode(seeded(member(c, 'b')), [id('ip', '10.0.0.1')]);
        const d = await deliveryWith(c, { max_total_count: 3 });
        const unlinked = { unlinkedTypes: ['ip'] };
        const a = id('member_id', 'a');
        const b = id('member_id', 'b');
        await show(c, d.deliveryId, a, 2, { person: unlinked });
        await show(c, d.deliveryId, b, 1, { person: unlinked });

        expect(await countsFor(c, a, d.deliveryId, DAY, unlinked)).toEqual(counts(2, 2));
        expect(await countsFor(c, b, d.deliveryId, DAY, unlinked)).toEqual(counts(1, 1));
        // What unlinkedTypes prevents: stepping through the ip makes them one person.
        expect(await countsFor(c, a, d.deliveryId, DAY)).toEqual(counts(3, 3));

        await expect(record(impression(c, d.deliveryId, a, { person: unlinked }))).resolves.toMatchObject({ answer: { personTotal: 3 } });
        await expect(record(impression(c, d.deliveryId, b, { person: unlinked }))).resolves.toMatchObject({ answer: { personTotal: 2 } });
        await expect(record(impression(c, d.deliveryId, a, { person: unlinked }))).rejects.toMatchObject({ code: 'cap_reached' });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(5));
        expect(await countsFor(c, a, d.deliveryId, DAY, unlinked)).toEqual(counts(3, 3));
        expect(await countsFor(c, b, d.deliveryId, DAY, unlinked)).toEqual(counts(2, 2));
      });

      test('when no node holds an ID, then it is a person of its own, capped like any other, whose impressions join a node that takes the ID', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('cookie', 'k1')]);
        const d = await deliveryWith(c, { max_total_count: 3 });
        const loose = id('device', 'loose');
        const m1 = id('member_id', 'm1');
        const answers = [await record(impression(c, d.deliveryId, loose)), await record(impression(c, d.deliveryId, loose, { day: NEXT_DAY }))];
        await show(c, d.deliveryId, m1);
        expect(answers.map((o) => [o.answer.personTotal, o.answer.personToday])).toEqual([
          [1, 1],
          [2, 1],
        ]);
        expect(await countsFor(c, loose, d.deliveryId)).toEqual(counts(2, 1));
        expect(await countsFor(c, m1, d.deliveryId)).toEqual(counts(1, 1));
        expect(await countsFor(c, id('device', 'another-loose'), d.deliveryId)).toEqual(ZERO);
        await expect(record(impression(c, d.deliveryId, loose))).resolves.toMatchObject({ answer: { personTotal: 3, personToday: 2 } });
        await expect(record(impression(c, d.deliveryId, loose))).rejects.toMatchObject({ code: 'cap_reached', members: { cap: 'max_total_count' } });
        expect(await countsFor(c, loose, d.deliveryId)).toEqual(counts(3, 2));

        // m1's node takes the ID: its impressions are m1's now, and m1 is past the cap.
        await store().insertIds(seeded(member(c, 'm1')), [loose]);
        expect(await countsFor(c, m1, d.deliveryId)).toEqual(counts(4, 3));
        expect(await countsFor(c, loose, d.deliveryId)).toEqual(counts(4, 3));
        await expect(record(impression(c, d.deliveryId, id('cookie', 'k1')))).rejects.toMatchObject({
          code: 'cap_reached',
          members: { cap: 'max_total_count' },
        });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(4));
      });

      test('when an ID is erased (scope id), then the impressions recorded against it go, and the person keeps those of their other IDs', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('cookie', 'k1'), id('device', 'd1')]);
        await store().createNode(seeded(member(c, 'm2')), [id('cookie', 'k2')]);
        const d = await deliveryWith(c);
        const other = await deliveryWith(c, {}, 'other');
        await show(c, d.deliveryId, id('member_id', 'm1'), 2);
        await show(c, d.deliveryId, id('cookie', 'k1'), 3);
        await show(c, other.deliveryId, id('cookie', 'k1'), 1);
        await show(c, d.deliveryId, id('device', 'd1'), 1, { day: NEXT_DAY });
        await show(c, d.deliveryId, id('member_id', 'm2'), 1);
        // The same value under another customer is another value.
        const elsewhere = await customerWith(MEMBER);
        const ofElsewhere = await deliveryWith(elsewhere);
        await show(elsewhere, ofElsewhere.deliveryId, id('cookie', 'k1'), 2);
        expect(await seenBy(c, id('member_id', 'm1'))).toEqual([
          [d.deliveryId, counts(6, 5)],
          [other.deliveryId, counts(1, 1)],
        ]);

        await store().erase(eraseRequest(c, id('cookie', 'k1'), 'id'));

        expect(await seenBy(c, id('member_id', 'm1'))).toEqual([[d.deliveryId, counts(3, 2)]]);
        expect(await seenBy(c, id('cookie', 'k1'))).toEqual([]);
        expect(await seenBy(c, id('member_id', 'm2'))).toEqual([[d.deliveryId, counts(1, 1)]]);
        expect(await seenBy(elsewhere, id('cookie', 'k1'))).toEqual([[ofElsewhere.deliveryId, counts(2, 2)]]);
        // The value used again starts from nothing.
        await expect(record(impression(c, d.deliveryId, id('cookie', 'k1')))).resolves.toMatchObject({ answer: { personTotal: 1, personToday: 1 } });
      });

      test('when a person is erased, then the impressions of all their values go, and another person keeps theirs, a links:false ID they shared included', async () => {
        const c = await customerWith(MEMBER_SHARED_DEVICE);
        const unlinked = { unlinkedTypes: ['device'] };
        // Ann: a1 and a2, linked by cookie ka; Bob: b1. They share a tablet, which never links.
        await store().createNode(seeded(member(c, 'a1')), [id('cookie', 'ka'), id('device', 'tablet')]);
        await store().createNode(seeded(member(c, 'a2')), [id('cookie', 'ka'), id('cookie', 'kb')]);
        await store().createNode(seeded(member(c, 'b1')), [id('device', 'tablet')]);
        const d = await deliveryWith(c);
        await show(c, d.deliveryId, id('member_id', 'a1'), 1, { person: unlinked });
        await show(c, d.deliveryId, id('cookie', 'ka'), 1, { person: unlinked });
        await show(c, d.deliveryId, id('cookie', 'kb'), 2, { person: unlinked });
        await show(c, d.deliveryId, id('device', 'tablet'), 1, { person: unlinked });
        await show(c, d.deliveryId, id('member_id', 'b1'), 2, { person: unlinked });
        expect(await countsFor(c, id('member_id', 'a2'), d.deliveryId, DAY, unlinked)).toEqual(counts(5, 5));
        expect(await countsFor(c, id('member_id', 'b1'), d.deliveryId, DAY, unlinked)).toEqual(counts(3, 3));

        await expect(store().erase(eraseRequest(c, id('cookie', 'kb'), 'person', unlinked))).resolves.toMatchObject({ nodesDeleted: 2 });

        for (const value of [id('member_id', 'a1'), id('member_id', 'a2'), id('cookie', 'ka'), id('cookie', 'kb')]) {
          expect([value, await seenBy(c, value, DAY, unlinked)]).toEqual([value, []]);
        }
        expect(await countsFor(c, id('member_id', 'b1'), d.deliveryId, DAY, unlinked)).toEqual(counts(3, 3));
        expect(await countsFor(c, id('device', 'tablet'), d.deliveryId, DAY, unlinked)).toEqual(counts(3, 3));
      });

      test.each(['id', 'person'] as const)('when an ID no node holds is erased (scope %s), then its impressions go, and others stay', async (scope) => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), []);
        const d = await deliveryWith(c);
        await show(c, d.deliveryId, id('device', 'loose'), 2);
        await show(c, d.deliveryId, id('device', 'other-loose'), 1);
        await show(c, d.deliveryId, id('member_id', 'm1'), 1);

        await expect(store().erase(eraseRequest(c, id('device', 'loose'), scope))).resolves.toEqual({ nodesDeleted: 0, idsRemoved: 0 });

        expect(await seenBy(c, id('device', 'loose'))).toEqual([]);
        expect(await seenBy(c, id('device', 'other-loose'))).toEqual([[d.deliveryId, counts(1, 1)]]);
        expect(await seenBy(c, id('member_id', 'm1'))).toEqual([[d.deliveryId, counts(1, 1)]]);
      });

      /** Whether a repeat of `key` answers a stored answer (replayed) or is counted again (the key's answer is gone). */
      const replays = async (customerId: string, deliveryId: number, user: IdPair, key: string, person: Partial<PersonRequest> = {}): Promise<boolean> =>
        (await record(impression(customerId, deliveryId, user, { key, person }))).replayed;

      test('when an ID is erased (scope id), then the idempotency keys of the impressions recorded against it go, and the keys of other IDs and customers stay', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('cookie', 'k1'), id('device', 'd1')]);
        const d = await deliveryWith(c);
        const other = await deliveryWith(c, {}, 'other');
        await show(c, d.deliveryId, id('cookie', 'k1'), 1, { key: 'key-k1' });
        await show(c, other.deliveryId, id('cookie', 'k1'), 1, { key: 'key-k1-other' });
        await show(c, d.deliveryId, id('member_id', 'm1'), 1, { key: 'key-m1' });
        const elsewhere = await customerWith(MEMBER);
        const ofElsewhere = await deliveryWith(elsewhere);
        await show(elsewhere, ofElsewhere.deliveryId, id('cookie', 'k1'), 1, { key: 'key-k1' });

        await store().erase(eraseRequest(c, id('cookie', 'k1'), 'id'));

        expect({
          k1: await replays(c, d.deliveryId, id('cookie', 'k1'), 'key-k1'),
          k1OfOther: await replays(c, other.deliveryId, id('cookie', 'k1'), 'key-k1-other'),
          m1: await replays(c, d.deliveryId, id('member_id', 'm1'), 'key-m1'),
          elsewhere: await replays(elsewhere, ofElsewhere.deliveryId, id('cookie', 'k1'), 'key-k1'),
        }).toEqual({ k1: false, k1OfOther: false, m1: true, elsewhere: true });
      });

      test('when a person is erased, then the idempotency keys of the impressions of all their values go, and those of a links:false ID another person still holds stay', async () => {
        const c = await customerWith(MEMBER_SHARED_DEVICE);
        const unlinked = { unlinkedTypes: ['device'] };
        await store().createNode(seeded(member(c, 'a1')), [id('cookie', 'ka'), id('device', 'tablet')]);
        await store().createNode(seeded(member(c, 'a2')), [id('cookie', 'ka'), id('cookie', 'kb')]);
        await store().createNode(seeded(member(c, 'b1')), [id('device', 'tablet')]);
        const d = await deliveryWith(c);
        const keyed: Array<[string, IdPair]> = [
          ['key-a1', id('member_id', 'a1')],
          ['key-ka', id('cookie', 'ka')],
          ['key-kb', id('cookie', 'kb')],
          ['key-tablet', id('device', 'tablet')],
          ['key-b1', id('member_id', 'b1')],
          ['key-loose', id('device', 'loose')],
        ];
        for (const [key, user] of keyed) await show(c, d.deliveryId, user, 1, { key, person: unlinked });

        await store().erase(eraseRequest(c, id('cookie', 'kb'), 'person', unlinked));

        const replayed: Record<string, boolean> = {};
        for (const [key, user] of keyed) replayed[key] = await replays(c, d.deliveryId, user, key, unlinked);
        expect(replayed).toEqual({ 'key-a1': false, 'key-ka': false, 'key-kb': false, 'key-tablet': true, 'key-b1': true, 'key-loose': true });
      });

      test.each(['id', 'person'] as const)(
        'when an ID no node holds is erased (scope %s), then the idempotency keys of its impressions go too',
        async (scope) => {
          const c = await customerWith(MEMBER);
          const d = await deliveryWith(c);
          await show(c, d.deliveryId, id('device', 'loose'), 1, { key: 'key-loose' });
          await show(c, d.deliveryId, id('device', 'other-loose'), 1, { key: 'key-other' });

          await store().erase(eraseRequest(c, id('device', 'loose'), scope));

          expect(await replays(c, d.deliveryId, id('device', 'loose'), 'key-loose')).toBe(false);
          expect(await replays(c, d.deliveryId, id('device', 'other-loose'), 'key-other')).toBe(true);
        },
      );

      test('when a delivery is deleted, then its impressions go with it: no person counts it, a new delivery starts from nothing, and it cannot be shown', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        const gone = await deliveryWith(c, {}, 'gone');
        const kept = await deliveryWith(c, {}, 'kept');
        const m1 = id('member_id', 'm1');
        await show(c, gone.deliveryId, m1, 2, { platform: 'ios' });
        await show(c, gone.deliveryId, id('device', 'd1'), 1, { key: 'k-gone' });
        await show(c, gone.deliveryId, id('device', 'loose'), 1);
        await show(c, kept.deliveryId, m1, 1);

        await expect(store().deleteDelivery(c, gone.deliveryId)).resolves.toBe(true);

        expect(await seenBy(c, m1)).toEqual([[kept.deliveryId, counts(1, 1)]]);
        expect(await seenBy(c, id('device', 'loose'))).toEqual([]);
        await expect(record(impression(c, gone.deliveryId, m1))).rejects.toMatchObject({ code: 'delivery_not_found' });
        await expect(record(impression(c, gone.deliveryId, id('device', 'd1'), { key: 'k-gone' }))).rejects.toMatchObject({ code: 'delivery_not_found' });
        const fresh = await deliveryWith(c, {}, 'fresh');
        expect(countersOf(fresh)).toEqual(counters(0));
        const state = await store().eligibility(checkedPerson(personOf(c, m1), DAY));
        expect(state.deliveries.map((x) => x.deliveryId).sort((x, y) => x - y)).toEqual([kept.deliveryId, fresh.deliveryId]);
        expect([...state.person.entries()]).toEqual([[kept.deliveryId, counts(1, 1)]]);
        await expect(record(impression(c, fresh.deliveryId, m1))).resolves.toMatchObject({ answer: { deliveryCount: 1, personTotal: 1 } });
        expect(await storedCounters(c, kept.deliveryId)).toEqual(counters(1));
      });

      test('when deliveries are deleted, then sweepDeletedDeliveries deletes exactly what they left, at most `limit` a call, and nothing of the deliveries kept', async () => {
        // What the other tests' deletes left first (the store is shared): from then on only this test's are left.
        await sweepAll();
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        const [gone, alsoGone, kept] = [await deliveryWith(c, {}, 'gone'), await deliveryWith(c, {}, 'also gone'), await deliveryWith(c, {}, 'kept')];
        const m1 = id('member_id', 'm1');
        // gone: four counts (m1 on two days, d1, loose) and two keys; alsoGone: one count, no key.
        await show(c, gone.deliveryId, m1, 2);
        await show(c, gone.deliveryId, m1, 1, { day: NEXT_DAY });
        await show(c, gone.deliveryId, id('device', 'd1'), 1, { key: 'k-1' });
        await show(c, gone.deliveryId, id('device', 'loose'), 1, { key: 'k-2' });
        await show(c, alsoGone.deliveryId, m1, 3);
        await show(c, kept.deliveryId, m1, 1, { key: 'k-1' });
        await expect(store().sweepDeletedDeliveries(1000)).resolves.toBe(0);

        await store().deleteDelivery(c, gone.deliveryId);
        await store().deleteDelivery(c, alsoGone.deliveryId);

        // 4 + 2 + 1 (the mark that gone has some left), then 1 + 1: nine in all, four at a time.
        const batches: number[] = [];
        for (let batch = 4; batch === 4; batches.push(batch)) batch = await store().sweepDeletedDeliveries(4);
        expect(batches).toEqual([4, 4, 1]);
        await expect(store().sweepDeletedDeliveries(1000)).resolves.toBe(0);
        expect(await seenBy(c, m1)).toEqual([[kept.deliveryId, counts(1, 1)]]);
        await expect(record(impression(c, kept.deliveryId, m1, { key: 'k-1' }))).resolves.toMatchObject({ replayed: true });
        expect(await storedCounters(c, kept.deliveryId)).toEqual(counters(1));
      });
    });

    // ------------------------------------------------------------------ showable
    describe('showable', () => {
      test('when only some deliveries are showable, then those come with live counts, the others as stored, in delivery_id order', async () => {
        const c = await customerWith(MEMBER);
        const [first, second, third] = [await deliveryWith(c, {}, 'a'), await deliveryWith(c, {}, 'b'), await deliveryWith(c, {}, 'c')];
        await show(c, first.deliveryId, id('member_id', 'm1'), 2);
        await show(c, third.deliveryId, id('member_id', 'm1'));
        const state = await store().eligibility(checkedPerson(personOf(c, id('member_id', 'm1')), DAY), (d) => d.name !== 'b');
        expect(state.deliveries.map((d) => [d.deliveryId, d.condition.deliveryCount])).toEqual([
          [first.deliveryId, 2],
          [third.deliveryId, 1],
        ]);
        expect(state.others.map((d) => d.deliveryId)).toEqual([second.deliveryId]);
        expect([...state.person.entries()].sort((a, b) => a[0] - b[0])).toEqual([
          [first.deliveryId, counts(2, 2)],
          [third.deliveryId, counts(1, 1)],
        ]);
      });

      test('when no delivery is showable, then the person is not read: no counts, and no component_too_large for a person past the bounds', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('cookie', 'k1')]);
        await store().createNode(seeded(member(c, 'm2')), [id('cookie', 'k1')]);
        const d = await deliveryWith(c);
        await show(c, d.deliveryId, id('member_id', 'm1'));
        const state = await store().eligibility(checkedPerson(personOf(c, id('member_id', 'm1'), { maxNodes: 1 }), DAY), () => false);
        expect(state).toEqual({ deliveries: [], others: [expect.objectContaining({ deliveryId: d.deliveryId })], person: new Map() });
        await expect(store().eligibility(checkedPerson(personOf(c, id('member_id', 'm1'), { maxNodes: 1 }), DAY))).rejects.toMatchObject({
          code: 'component_too_large',
        });
      });
    });

    // ------------------------------------------------------------------ the mapi token of a call
    describe('the mapi token of a call', () => {
      test('when a call names a mapi token, then it is answered while the token is an active mapi token of the customer; else invalid_token, and nothing is counted', async () => {
        const c = await customerWith(MEMBER);
        const other = newCustomer();
        const d = await deliveryWith(c);
        const user = id('member_id', 'm1');
        const tokenOf = async (customerId: string, kind: 'mapi' | 'bearer', suffix: string) => {
          const token = {
            tokenId: `tok_${customerId}_${suffix}`,
            customerId,
            kind,
            label: null,
            createdAt: new Date().toISOString(),
            tokenHash: hashToken(`${customerId}-${suffix}`),
          };
          await store().createToken(token);
          return token;
        };
        const mapi = await tokenOf(c, 'mapi', 'mapi');
        const active = { mapiToken: mapi.tokenHash };
        expect((await store().eligibility(checkedPerson(personOf(c, user, active), DAY))).deliveries.map((x) => x.deliveryId)).toEqual([d.deliveryId]);
        await show(c, d.deliveryId, user, 1, { person: active, key: 'k1' });
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(1));

        const revoked = await tokenOf(c, 'mapi', 'revoked');
        expect(await store().revokeToken(c, revoked.tokenId)).toBe(true);
        const refused = [
          revoked.tokenHash,
          (await tokenOf(c, 'bearer', 'bearer')).tokenHash,
          (await tokenOf(other, 'mapi', 'mapi')).tokenHash,
          hashToken('never issued'),
        ];
        for (const mapiToken of refused) {
          await expect(store().eligibility(checkedPerson(personOf(c, user, { mapiToken }), DAY))).rejects.toMatchObject({ code: 'invalid_token' });
          // Also when no delivery is left to weigh, and the person is not read.
          await expect(store().eligibility(checkedPerson(personOf(c, user, { mapiToken }), DAY), () => false)).rejects.toMatchObject({ code: 'invalid_token' });
          // Not even the answer of an earlier display with the same key.
          await expect(record(impression(c, d.deliveryId, user, { person: { mapiToken }, key: 'k1' }))).rejects.toMatchObject({ code: 'invalid_token' });
          await expect(record(impression(c, d.deliveryId, user, { person: { mapiToken } }))).rejects.toMatchObject({ code: 'invalid_token' });
        }
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(1));
        expect(await seenBy(c, user)).toEqual([[d.deliveryId, counts(1, 1)]]);
      });
    });

    // ------------------------------------------------------------------ bounds
    describe('bounds', () => {
      test('when the person has more nodes or IDs than allowed, then eligibility and recordImpression answer component_too_large and nothing is counted', async () => {
        const c = await customerWith(MEMBER);
        // Three nodes in a chain: m1 -k1- m2 -k2- m3; five IDs (m1, m2, m3, k1, k2).
        await store().createNode(seeded(member(c, 'm1')), [id('cookie', 'k1')]);
        await store().createNode(seeded(member(c, 'm2')), [id('cookie', 'k1'), id('cookie', 'k2')]);
        await store().createNode(seeded(member(c, 'm3')), [id('cookie', 'k2')]);
        const d = await deliveryWith(c);
        for (const bounds of [{ maxNodes: 2 }, { maxIds: 4 }]) {
          for (const user of [id('member_id', 'm1'), id('cookie', 'k2'), id('member_id', 'm3')]) {
            await expect(store().eligibility(checkedPerson(personOf(c, user, bounds), DAY))).rejects.toMatchObject({ code: 'component_too_large' });
            await expect(record(impression(c, d.deliveryId, user, { person: bounds, key: `k-${user.id}` }))).rejects.toMatchObject({
              code: 'component_too_large',
            });
          }
        }
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(0));
        expect(await seenBy(c, id('member_id', 'm2'))).toEqual([]);

        // At the bounds exactly, the person is counted; the keys of the refused displays were not kept.
        const atBounds = { maxNodes: 3, maxIds: 5 };
        await expect(record(impression(c, d.deliveryId, id('member_id', 'm1'), { person: atBounds, key: 'k-m1' }))).resolves.toMatchObject({
          replayed: false,
          answer: { deliveryCount: 1, personTotal: 1 },
        });
        expect(await countsFor(c, id('member_id', 'm3'), d.deliveryId, DAY, atBounds)).toEqual(counts(1, 1));
        expect(await storedCounters(c, d.deliveryId)).toEqual(counters(1));
      });
    });

    // ------------------------------------------------------------------ races
    describe('races: exact under concurrency', () => {
      const RACE_TIMEOUT = 180_000;

      /** Settles every call at once; tallies the fulfilled answers and the refusals (code/cap). */
      async function race(calls: Array<() => Promise<ImpressionOutcome>>) {
        const settled = await Promise.allSettled(calls.map((call) => call()));
        const fulfilled: ImpressionOutcome[] = [];
        const refused = new Map<string, number>();
        for (const s of settled) {
          if (s.status === 'fulfilled') fulfilled.push(s.value);
          else refused.set(refusal(s.reason), (refused.get(refusal(s.reason)) ?? 0) + 1);
        }
        return { fulfilled, refused: Object.fromEntries(refused) };
      }

      const sortedNumbers = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
      const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

      test(
        'when 200 displays to one person, through 5 IDs of 3 linked nodes, race against max_total_count 3, then exactly 3 are counted',
        async () => {
          const c = await customerWith(MEMBER);
          // r0 -k01- r1 -k12- r2; the person's IDs used: r0, r1, r2, k01, k12.
          await store().createNode(seeded(member(c, 'r0')), [id('cookie', 'k01')]);
          await store().createNode(seeded(member(c, 'r1')), [id('cookie', 'k01'), id('cookie', 'k12')]);
          await store().createNode(seeded(member(c, 'r2')), [id('cookie', 'k12')]);
          const users = [id('member_id', 'r0'), id('member_id', 'r1'), id('member_id', 'r2'), id('cookie', 'k01'), id('cookie', 'k12')];
          const d = await deliveryWith(c, { max_total_count: 3 });
          const platforms: Platform[] = ['ios', 'android', 'other'];

          const { fulfilled, refused } = await race(
            Array.from(
              { length: 200 },
              (_, i) => () => record(impression(c, d.deliveryId, users[i % users.length] as IdPair, { platform: platforms[i % 3] as Platform })),
            ),
          );

          expect(fulfilled).toHaveLength(3);
          expect(refused).toEqual({ 'cap_reached/max_total_count': 197 });
          expect(sortedNumbers(fulfilled.map((o) => o.answer.deliveryCount))).toEqual(upTo(3));
          expect(sortedNumbers(fulfilled.map((o) => o.answer.personTotal))).toEqual(upTo(3));
          const stored = await store().getDelivery(c, d.deliveryId);
          expect(stored?.condition.deliveryCount).toBe(fulfilled.length);
          expect((stored?.condition.iphoneDeliveryCount ?? 0) + (stored?.condition.androidDeliveryCount ?? 0)).toBeLessThanOrEqual(3);
          for (const user of users) expect([user, await countsFor(c, user, d.deliveryId)]).toEqual([user, counts(3, 3)]);
        },
        RACE_TIMEOUT,
      );

      test(
        'when 300 displays to 50 people race against max_delivery_count 40, then exactly 40 are counted, each to its person',
        async () => {
          const c = await customerWith(MEMBER);
          // People 0-24 are nodes, 25-49 IDs no node holds.
          for (let p = 0; p < 25; p += 1) await store().createNode(seeded(member(c, `p${p}`)), [id('cookie', `k${p}`)]);
          const people = Array.from({ length: 50 }, (_, p) => (p < 25 ? id('member_id', `p${p}`) : id('device', `loose-${p}`)));
          const d = await deliveryWith(c, { max_delivery_count: 40 });

          const calls = Array.from({ length: 300 }, (_, i) => {
            const p = i % 50;
            // Half of each node's displays go through its cookie.
            const user = p < 25 && i % 100 >= 50 ? id('cookie', `k${p}`) : (people[p] as IdPair);
            return () => record(impression(c, d.deliveryId, user, { platform: i % 2 === 0 ? 'ios' : 'android' })).then((o) => ({ ...o, p }));
          });
          const settled = await Promise.allSettled(calls.map((call) => call()));
          const fulfilled = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
          const refused = settled.flatMap((s) => (s.status === 'rejected' ? [refusal(s.reason)] : []));

          expect(fulfilled).toHaveLength(40);
          expect(refused).toEqual(Array.from({ length: 260 }, () => 'cap_reached/max_delivery_count'));
          expect(sortedNumbers(fulfilled.map((o) => o.answer.deliveryCount))).toEqual(upTo(40));
          const stored = await store().getDelivery(c, d.deliveryId);
          expect(stored?.condition.deliveryCount).toBe(40);
          expect((stored?.condition.iphoneDeliveryCount ?? 0) + (stored?.condition.androidDeliveryCount ?? 0)).toBe(40);
          let sum = 0;
          for (const [p, user] of people.entries()) {
            const total = (await countsFor(c, user, d.deliveryId)).total;
            sum += total;
            expect([p, total]).toEqual([p, fulfilled.filter((o) => o.p === p).length]);
          }
          expect(sum).toBe(40);
        },
        RACE_TIMEOUT,
      );

      test(
        'when 240 displays of 8 deliveries to 12 people race, each delivery against max_delivery_count 10 and max_total_count 2, then exactly 10 of each are counted, at most 2 to a person',
        async () => {
          const c = await customerWith(MEMBER);
          // People 0-5 are nodes, each shown through its key or its cookie; 6-11 are IDs no node holds.
          for (let p = 0; p < 6; p += 1) await store().createNode(seeded(member(c, `q${p}`)), [id('cookie', `q${p}`)]);
          const deliveries: Delivery[] = [];
          for (let n = 0; n < 8; n += 1) deliveries.push(await deliveryWith(c, { max_delivery_count: 10, max_total_count: 2 }, `d${n}`));

          const calls = Array.from({ length: 240 }, (_, i) => {
            const d = deliveries[i % 8] as Delivery;
            const p = Math.floor(i / 8) % 12;
            const user = p < 6 ? (i % 16 < 8 ? id('member_id', `q${p}`) : id('cookie', `q${p}`)) : id('device', `loose-${p}`);
            return () => record(impression(c, d.deliveryId, user)).then((o) => ({ ...o, p }));
          });
          const settled = await Promise.allSettled(calls.map((call) => call()));
          const fulfilled = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
          const refused = settled.flatMap((s) => (s.status === 'rejected' ? [refusal(s.reason)] : []));

          expect(fulfilled).toHaveLength(80);
          expect(refused.filter((r) => r !== 'cap_reached/max_delivery_count' && r !== 'cap_reached/max_total_count')).toEqual([]);
          for (const d of deliveries) {
            const ofDelivery = fulfilled.filter((o) => o.answer.deliveryId === d.deliveryId);
            expect([d.deliveryId, sortedNumbers(ofDelivery.map((o) => o.answer.deliveryCount))]).toEqual([d.deliveryId, upTo(10)]);
            expect(await storedCounters(c, d.deliveryId)).toEqual(counters(10));
            for (let p = 0; p < 12; p += 1) {
              const user = p < 6 ? id('member_id', `q${p}`) : id('device', `loose-${p}`);
              const shown = ofDelivery.filter((o) => o.p === p).length;
              expect(shown).toBeLessThanOrEqual(2);
              expect([d.deliveryId, p, (await countsFor(c, user, d.deliveryId)).total]).toEqual([d.deliveryId, p, shown]);
            }
          }
        },
        RACE_TIMEOUT,
      );

      test(
        'when 100 displays on one day and 100 on the next, to one person, race against max_total_count_per_day 2, then exactly 2 are counted each day',
        async () => {
          const c = await customerWith(MEMBER);
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          const users = [id('member_id', 'm1'), id('device', 'd1')];
          const d = await deliveryWith(c, { max_total_count_per_day: 2 });

          const calls = Array.from({ length: 200 }, (_, i) => {
            const day = i % 2 === 0 ? DAY : NEXT_DAY;
            return () => record(impression(c, d.deliveryId, users[Math.floor(i / 2) % 2] as IdPair, { day })).then((o) => ({ ...o, day }));
          });
          const settled = await Promise.allSettled(calls.map((call) => call()));
          const fulfilled = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
          const refused = settled.flatMap((s) => (s.status === 'rejected' ? [refusal(s.reason)] : []));

          expect(fulfilled.filter((o) => o.day === DAY)).toHaveLength(2);
          expect(fulfilled.filter((o) => o.day === NEXT_DAY)).toHaveLength(2);
          expect(refused).toEqual(Array.from({ length: 196 }, () => 'cap_reached/max_total_count_per_day'));
          for (const day of [DAY, NEXT_DAY]) {
            expect(sortedNumbers(fulfilled.filter((o) => o.day === day).map((o) => o.answer.personToday))).toEqual([1, 2]);
          }
          expect(sortedNumbers(fulfilled.map((o) => o.answer.deliveryCount))).toEqual(upTo(4));
          expect(await storedCounters(c, d.deliveryId)).toEqual(counters(fulfilled.length));
          for (const user of users) {
            expect(await countsFor(c, user, d.deliveryId, DAY)).toEqual(counts(4, 2));
            expect(await countsFor(c, user, d.deliveryId, NEXT_DAY)).toEqual(counts(4, 2));
          }
        },
        RACE_TIMEOUT,
      );

      test(
        'when 100 displays with the same idempotency key race, then exactly one is counted and all 100 get its answer, 99 replayed',
        async () => {
          const c = await customerWith(MEMBER);
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          const d = await deliveryWith(c);
          const users = [id('member_id', 'm1'), id('device', 'd1')];

          const { fulfilled, refused } = await race(
            Array.from({ length: 100 }, (_, i) => () => record(impression(c, d.deliveryId, users[i % 2] as IdPair, { key: 'k-race', platform: 'android' }))),
          );

          expect(refused).toEqual({});
          expect(fulfilled).toHaveLength(100);
          expect(fulfilled.filter((o) => !o.replayed)).toHaveLength(1);
          expect(fulfilled.filter((o) => o.replayed)).toHaveLength(99);
          const expected = { deliveryId: d.deliveryId, deliveryCount: 1, personTotal: 1, personToday: 1 };
          expect(fulfilled.filter((o) => JSON.stringify(o.answer) !== JSON.stringify(expected))).toEqual([]);
          expect(await storedCounters(c, d.deliveryId)).toEqual(counters(1, 0, 1));
          expect(await seenBy(c, id('member_id', 'm1'))).toEqual([[d.deliveryId, counts(1, 1)]]);
        },
        RACE_TIMEOUT,
      );

      test(
        'when 3 deletes, 80 displays and 4 sweeps of what deletes left race, then every row a deleted delivery left is swept exactly once, and the kept delivery keeps all it counted',
        async () => {
          await sweepAll();
          const c = await customerWith(MEMBER);
          const gone = [await deliveryWith(c, {}, 'g0'), await deliveryWith(c, {}, 'g1'), await deliveryWith(c, {}, 'g2')];
          const kept = await deliveryWith(c, {}, 'kept');
          // Before the race, each deleted one is shown to 4 IDs, once with a key: 4 counts, 1 key, and later 1 mark.
          for (const d of gone) {
            for (let n = 0; n < 4; n += 1) await show(c, d.deliveryId, id('device', `before-${d.deliveryId}-${n}`), 1, n === 0 ? { key: 'k' } : {});
          }

          // Each display to an ID of its own: one more count when it is counted.
          const displays = Array.from({ length: 80 }, (_, i) => {
            const d = [...gone, kept][i % 4] as Delivery;
            return record(impression(c, d.deliveryId, id('device', `race-${i}`))).then(() => d.deliveryId);
          });
          let deletesDone = false;
          const deletes = Promise.all(gone.map((d) => store().deleteDelivery(c, d.deliveryId))).finally(() => {
            deletesDone = true;
          });
          const sweeps = Array.from({ length: 4 }, async () => {
            let swept = 0;
            for (;;) {
              const done = deletesDone;
              const batch = await store().sweepDeletedDeliveries(3);
              swept += batch;
              if (batch < 3 && done) return swept;
            }
          });
          const [shown, deleted, swept] = await Promise.all([Promise.allSettled(displays), deletes, Promise.all(sweeps)]);

          expect(deleted).toEqual([true, true, true]);
          expect(shown.flatMap((r) => (r.status === 'rejected' ? [refusal(r.reason)] : [])).filter((r) => r !== 'delivery_not_found/-')).toEqual([]);
          const counted = shown.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
          const countedOfGone = counted.filter((deliveryId) => deliveryId !== kept.deliveryId).length;
          expect(swept.reduce((a, b) => a + b, 0)).toBe(3 * (4 + 1 + 1) + countedOfGone);
          await expect(store().sweepDeletedDeliveries(1000)).resolves.toBe(0);
          expect(await storedCounters(c, kept.deliveryId)).toEqual(counters(20));
          expect(await seenBy(c, id('device', 'race-3'))).toEqual([[kept.deliveryId, counts(1, 1)]]);
          expect(await seenBy(c, id('device', 'race-0'))).toEqual([]);
        },
        RACE_TIMEOUT,
      );
    });
  });

  function eraseRequest(customerId: string, erased: IdPair, scope: 'id' | 'person', overrides: Partial<EraseRequest> = {}): EraseRequest {
    return {
      customerId,
      id: erased,
      scope,
      unlinkedTypes: [],
      maxNodes: 10_000,
      maxIds: 50_000,
      audit: { requestId: 'req-erase', actor: 'admin' },
      ...overrides,
    };
  }
}
