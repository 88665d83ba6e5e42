// Delivery that counts, through HTTP (docs/deliveries.md): POST /v1/delivery/_eligible (which deliveries a person should
// see, and why the others not) and POST /v1/delivery/{delivery_id}/_impression (counting one display against the
// caps). A person is the component (step ALL, never through `links: false` types) of the given ID; counts sum over it.
// Every answer is also checked against openapi.yaml by `app.call`; every claim about counts is read back through
// GET /v1/delivery/{id}, the list, or the next impression's answer. This file also runs on Neo4j (the API suites run
// on both stores), so every test has customers of its own and never assumes an empty store.
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import type { DeliveryAnswer as Delivery } from '../helpers/deliveries';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { asMapi, buildCondition, buildDelivery, type ConditionBody, type DeliveryBody, listPage, postDelivery } from '../helpers/deliveries';
import { errorPaths, expectProblem, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { createNode, type IdPairBody, issueToken, putSchema } from '../helpers/factories';

/** member as the other API tests have it, plus ip, which never links. */
const SCHEMA = { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'cookie' }, { type: 'email', secure: true }, { type: 'ip', links: false }] };
const m = (value: string) => id('member_id', value);
const device = (value: string) => id('device', value);
const cookie = (value: string) => id('cookie', value);
const ip = (value: string) => id('ip', value);
const email = (value: string) => id('email', value);

/** The period most deliveries here have: all of 2026 and the first months of 2027. */
const SPAN = { start: '2026-01-01T00:00:00Z', end: '2027-06-01T00:00:00Z' };
/** A moment in SPAN, and the next day. */
const AT = '2026-06-15T12:00:00Z';
const NEXT_DAY = '2026-06-16T12:00:00Z';

/** A condition shown on app_open through SPAN to segment 7, with caps no test reaches unless it lowers them. */
const condition = (overrides: Partial<ConditionBody> = {}): ConditionBody =>
  buildCondition({
    trigger: { event_name: ['app_open'], period: [SPAN] },
    target: { segmentation_id: 7 },
    max_delivery_count: 1000,
    max_total_count: 1000,
    max_total_count_per_day: 1000,
    ...overrides,
  });
const showable = (overrides: Partial<ConditionBody> = {}, rest: Partial<DeliveryBody> = {}): DeliveryBody =>
  buildDelivery({ condition: condition(overrides), ...rest });

interface Answer {
  delivery_id: number;
  delivery_count: number;
  person_total: number;
  person_today: number;
}
type Reason =
  'inactive' | 'event_not_matched' | 'outside_period' | 'not_in_segment' | 'delivery_cap_reached' | 'person_cap_reached' | 'person_daily_cap_reached';
interface Eligibility {
  deliveries: Delivery[];
  excluded?: Array<{ delivery_id: number; reason: Reason }>;
}

const counts = (d: Delivery) => ({
  delivery_count: d.condition.delivery_count,
  iphone_delivery_count: d.condition.iphone_delivery_count,
  android_delivery_count: d.condition.android_delivery_count,
});
const zero = { delivery_count: 0, iphone_delivery_count: 0, android_delivery_count: 0 };
const ids = (items: Delivery[]) => items.map((d) => d.delivery_id);

/** A well-formed mapi secret the service never issued. */
const unknownMapiToken = (): string => `idl_mapi_${randomBytes(32).toString('base64url')}`;

/** 400 validation_failed whose every error points at `path`. */
function expectInvalidAt(res: Response, path: string): void {
  expectProblem(res, 400, 'validation_failed');
  const paths = errorPaths(res);
  expect(paths.length).toBeGreaterThan(0);
  expect([...new Set(paths)]).toEqual([path]);
}

/** 409 cap_reached naming `cap`. */
function expectCap(res: Response, cap: string): void {
  expectProblem(res, 409, 'cap_reached');
  expect((res.body as { cap?: unknown }).cap).toBe(cap);
}

describe('showing deliveries: eligibility and impressions', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  // ---- calls

  const eligible = (mapi: string, body: unknown) => app.call('POST', '/v1/delivery/_eligible', asMapi(mapi, body));
  const impression = (mapi: string, deliveryId: number | string, body: unknown) =>
    app.call('POST', `/v1/delivery/${deliveryId}/_impression`, asMapi(mapi, body));

  /** An impression that must be counted: 201, not a replay; returns its answer. */
  async function shown(mapi: string, deliveryId: number, body: object): Promise<Answer> {
    const res = await impression(mapi, deliveryId, body);
    if (res.status !== 201) throw new Error(`impression failed: ${res.status} ${res.text}`);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    return res.body as Answer;
  }
  /** What eligibility answers with explain, as ids and reasons. */
  async function decided(mapi: string, body: object): Promise<{ shown: number[]; excluded: Array<{ delivery_id: number; reason: Reason }> }> {
    const res = await eligible(mapi, { explain: true, ...body });
    if (res.status !== 200) throw new Error(`eligibility failed: ${res.status} ${res.text}`);
    const b = res.body as Eligibility;
    return { shown: ids(b.deliveries), excluded: b.excluded ?? [] };
  }
  async function read(mapi: string, deliveryId: number): Promise<Delivery> {
    const res = await app.call('GET', `/v1/delivery/${deliveryId}`, asMapi(mapi));
    if (res.status !== 200) throw new Error(`delivery read failed: ${res.status} ${res.text}`);
    return res.body as Delivery;
  }
  const nodeCall = (customer: string, op: '_insert' | '_delete' | '_create', body: object) => app.call('POST', `/v1/${customer}/node/${op}`, { body });
  async function nodeWrite(customer: string, op: '_insert' | '_delete' | '_create', body: object): Promise<void> {
    const res = await nodeCall(customer, op, body);
    if (res.status >= 300) throw new Error(`${op} failed: ${res.status} ${res.text}`);
  }
  async function putSettings(customer: string, settings: object): Promise<void> {
    const res = await app.call('PUT', `/v1/${customer}/settings`, { token: ADMIN_TOKEN, body: settings });
    if (res.status !== 200) throw new Error(`settings failed: ${res.status} ${res.text}`);
  }

  /** A customer of its own with the schema above, its mapi token, and (optionally) a time zone. */
  async function customerWith(timezone?: string): Promise<{ customer: string; mapi: string }> {
    const customer = uniqueCustomer('show');
    await putSchema(app, customer, 'member', SCHEMA);
    if (timezone !== undefined) await putSettings(customer, { timezone });
    return { customer, mapi: (await issueToken(app, customer, 'mapi')).token };
  }
  /** A customer with one delivery (`body`, showable by default). */
  async function oneDelivery(body: DeliveryBody = showable(), timezone?: string) {
    const c = await customerWith(timezone);
    return { ...c, delivery: await postDelivery(app, c.mapi, body) };
  }

  // ------------------------------------------------------------------ eligibility: the answer
  describe('eligibility: the answer', () => {
    test('when a delivery is eligible and explain is absent, then 200 with only `deliveries`, holding the delivery exactly as GET shows it', async () => {
      const { mapi, delivery } = await oneDelivery();
      const res = await eligible(mapi, { user: m('m-1'), event_name: 'app_open', at: AT });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deliveries: [await read(mapi, delivery.delivery_id)] });
      expect(Object.keys(res.body as object)).toEqual(['deliveries']);
    });

    test('when explain is false, then `excluded` is absent even though a delivery is excluded', async () => {
      const { mapi } = await customerWith();
      const kept = await postDelivery(app, mapi, showable());
      await postDelivery(app, mapi, showable({ is_active: false }));
      const res = await eligible(mapi, { user: m('m-1'), event_name: 'app_open', at: AT, explain: false });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deliveries: [await read(mapi, kept.delivery_id)] });
      expect(Object.keys(res.body as object)).toEqual(['deliveries']);
    });

    test('when explain is true, then `excluded` names every other delivery with its reason, in delivery_id order', async () => {
      const { mapi } = await customerWith();
      const a = await postDelivery(app, mapi, showable({ is_active: false }));
      const b = await postDelivery(app, mapi, showable());
      const c = await postDelivery(app, mapi, showable({ trigger: { event_name: ['purchase'], period: [SPAN] } }));
      const d = await postDelivery(app, mapi, showable({ target: { segmentation_id: 99 } }));
      const res = await eligible(mapi, { user: m('m-1'), event_name: 'app_open', at: AT, segments: [7], explain: true });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        deliveries: [await read(mapi, b.delivery_id)],
        excluded: [
          { delivery_id: a.delivery_id, reason: 'inactive' },
          { delivery_id: c.delivery_id, reason: 'event_not_matched' },
          { delivery_id: d.delivery_id, reason: 'not_in_segment' },
        ],
      });
    });

    test('when the customer has no deliveries, then 200 with empty lists', async () => {
      const { mapi } = await customerWith();
      const res = await eligible(mapi, { user: m('m-1'), event_name: 'app_open', explain: true });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deliveries: [], excluded: [] });
      expect((await eligible(mapi, { user: m('m-1'), event_name: 'app_open' })).body).toEqual({ deliveries: [] });
    });

    test('when several deliveries are eligible, then highest priority comes first, then delivery_id ascending', async () => {
      const { mapi } = await customerWith();
      const priorities = [5, 10, 0, 10, 7, 5, 0];
      const made: Delivery[] = [];
      for (const [i, priority] of priorities.entries()) made.push(await postDelivery(app, mapi, showable({}, { priority, name: `p${i}` })));
      const byId = (i: number) => (made[i] as Delivery).delivery_id;
      const res = await eligible(mapi, { user: m('m-1'), event_name: 'app_open', at: AT });
      expect(res.status).toBe(200);
      expect(ids((res.body as Eligibility).deliveries)).toEqual([byId(1), byId(3), byId(4), byId(0), byId(5), byId(2), byId(6)]);
      // Each in the list's format: the same objects the list shows.
      const list = await listPage(app, mapi, '?count=100');
      expect([...(res.body as Eligibility).deliveries].sort((x, y) => x.delivery_id - y.delivery_id)).toEqual(list.items);
    });

    test('when another customer has deliveries, then they are never listed, as eligible or excluded', async () => {
      const a = await oneDelivery();
      const b = await oneDelivery(showable({ is_active: false }));
      expect(await decided(a.mapi, { user: m('m-1'), event_name: 'app_open', at: AT })).toEqual({ shown: [a.delivery.delivery_id], excluded: [] });
      expect(await decided(b.mapi, { user: m('m-1'), event_name: 'app_open', at: AT })).toEqual({
        shown: [],
        excluded: [{ delivery_id: b.delivery.delivery_id, reason: 'inactive' }],
      });
    });

    test.each(['ios', 'android', 'other', undefined])('when platform is %s, then the answer is the same and nothing is counted', async (platform) => {
      const { mapi, delivery } = await oneDelivery();
      const res = await eligible(mapi, { user: m('m-1'), event_name: 'app_open', at: AT, ...(platform ? { platform } : {}) });
      expect(res.status).toBe(200);
      expect(ids((res.body as Eligibility).deliveries)).toEqual([delivery.delivery_id]);
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual(zero);
    });

    test('when eligibility is asked many times, then nothing is counted: the delivery stays at 0 and the first impression is the first', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count: 1, max_total_count_per_day: 1, max_delivery_count: 1 }));
      for (let i = 0; i < 5; i++) expect((await decided(mapi, { user: m('m-1'), event_name: 'app_open', at: AT })).shown).toEqual([delivery.delivery_id]);
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual(zero);
      expect(await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT })).toEqual({
        delivery_id: delivery.delivery_id,
        delivery_count: 1,
        person_total: 1,
        person_today: 1,
      });
    });

    test('when at is absent, then it is now: a period around now is eligible, one that ended is outside_period', async () => {
      const { mapi } = await customerWith();
      const hour = 3_600_000;
      const around = await postDelivery(
        app,
        mapi,
        showable({
          trigger: { event_name: ['app_open'], period: [{ start: new Date(Date.now() - hour).toISOString(), end: new Date(Date.now() + hour).toISOString() }] },
        }),
      );
      const ended = await postDelivery(
        app,
        mapi,
        showable({ trigger: { event_name: ['app_open'], period: [{ start: '2020-01-01T00:00:00Z', end: new Date(Date.now() - hour).toISOString() }] } }),
      );
      const later = await postDelivery(
        app,
        mapi,
        showable({ trigger: { event_name: ['app_open'], period: [{ start: new Date(Date.now() + hour).toISOString(), end: '2099-01-01T00:00:00Z' }] } }),
      );
      expect(await decided(mapi, { user: m('m-1'), event_name: 'app_open' })).toEqual({
        shown: [around.delivery_id],
        excluded: [
          { delivery_id: ended.delivery_id, reason: 'outside_period' },
          { delivery_id: later.delivery_id, reason: 'outside_period' },
        ],
      });
    });

    test('when the delivery list shows counts, then eligibility shows the same live counts', async () => {
      const { mapi, delivery } = await oneDelivery();
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), platform: 'ios', at: AT });
      await shown(mapi, delivery.delivery_id, { user: m('m-2'), platform: 'android', at: AT });
      const res = await eligible(mapi, { user: m('m-3'), event_name: 'app_open', at: AT });
      const [listed] = (await listPage(app, mapi)).items;
      expect((res.body as Eligibility).deliveries).toEqual([listed]);
      expect(counts(listed as Delivery)).toEqual({ delivery_count: 2, iphone_delivery_count: 1, android_delivery_count: 1 });
    });
  });

  // ------------------------------------------------------------------ eligibility: each reason
  describe('eligibility: each reason of §4.1', () => {
    test('when is_active is false, then inactive', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ is_active: false }));
      expect(await decided(mapi, { user: m('m-1'), event_name: 'app_open', at: AT })).toEqual({
        shown: [],
        excluded: [{ delivery_id: delivery.delivery_id, reason: 'inactive' }],
      });
    });

    test.each(['purchase', 'App_Open', 'app_open ', 'app'])(
      'when event_name is %j and the trigger has app_open and app_close, then event_not_matched',
      async (event) => {
        const { mapi, delivery } = await oneDelivery(showable({ trigger: { event_name: ['app_close', 'app_open'], period: [SPAN] } }));
        expect(await decided(mapi, { user: m('m-1'), event_name: event, at: AT })).toEqual({
          shown: [],
          excluded: [{ delivery_id: delivery.delivery_id, reason: 'event_not_matched' }],
        });
        expect((await decided(mapi, { user: m('m-1'), event_name: 'app_close', at: AT })).shown).toEqual([delivery.delivery_id]);
      },
    );

    test('when the trigger has no event names, then every event is event_not_matched', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ trigger: { event_name: [], period: [SPAN] } }));
      expect(await decided(mapi, { user: m('m-1'), event_name: 'app_open', at: AT })).toEqual({
        shown: [],
        excluded: [{ delivery_id: delivery.delivery_id, reason: 'event_not_matched' }],
      });
    });

    test('when at is in no period, then outside_period; in the second of two periods it is eligible', async () => {
      const periods = [
        { start: '2026-01-01T00:00:00Z', end: '2026-02-01T00:00:00Z' },
        { start: '2026-03-01T00:00:00Z', end: '2026-04-01T00:00:00Z' },
      ];
      const { mapi, delivery } = await oneDelivery(showable({ trigger: { event_name: ['app_open'], period: periods } }));
      const ask = (at: string) => decided(mapi, { user: m('m-1'), event_name: 'app_open', at });
      const out = { shown: [], excluded: [{ delivery_id: delivery.delivery_id, reason: 'outside_period' }] };
      const eligibleNow = { shown: [delivery.delivery_id], excluded: [] };
      expect(await ask('2025-12-31T23:59:59Z')).toEqual(out);
      expect(await ask('2026-01-15T00:00:00Z')).toEqual(eligibleNow);
      expect(await ask('2026-02-15T00:00:00Z')).toEqual(out);
      expect(await ask('2026-03-15T00:00:00Z')).toEqual(eligibleNow);
      expect(await ask('2026-04-15T00:00:00Z')).toEqual(out);
    });

    test('when segments are given without the delivery segment, then not_in_segment', async () => {
      const { mapi, delivery } = await oneDelivery();
      expect(await decided(mapi, { user: m('m-1'), event_name: 'app_open', at: AT, segments: [1, 2, 70] })).toEqual({
        shown: [],
        excluded: [{ delivery_id: delivery.delivery_id, reason: 'not_in_segment' }],
      });
    });

    test('when another person has reached max_delivery_count, then delivery_cap_reached for everyone', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_delivery_count: 1 }));
      await shown(mapi, delivery.delivery_id, { user: m('m-other'), at: AT });
      expect(await decided(mapi, { user: m('m-1'), event_name: 'app_open', at: AT })).toEqual({
        shown: [],
        excluded: [{ delivery_id: delivery.delivery_id, reason: 'delivery_cap_reached' }],
      });
    });

    test('when the person has reached max_total_count on earlier days, then person_cap_reached, and another person is still eligible', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count: 2, max_total_count_per_day: 5 }));
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: '2026-06-01T12:00:00Z' });
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: '2026-06-02T12:00:00Z' });
      expect(await decided(mapi, { user: m('m-1'), event_name: 'app_open', at: AT })).toEqual({
        shown: [],
        excluded: [{ delivery_id: delivery.delivery_id, reason: 'person_cap_reached' }],
      });
      expect((await decided(mapi, { user: m('m-2'), event_name: 'app_open', at: AT })).shown).toEqual([delivery.delivery_id]);
    });

    test('when the person has reached max_total_count_per_day on the day of at, then person_daily_cap_reached; the next day, and the day before, are eligible', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count: 5, max_total_count_per_day: 2 }));
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: '2026-06-15T00:00:00Z' });
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: '2026-06-15T23:59:59Z' });
      const ask = (at: string) => decided(mapi, { user: m('m-1'), event_name: 'app_open', at });
      expect(await ask(AT)).toEqual({ shown: [], excluded: [{ delivery_id: delivery.delivery_id, reason: 'person_daily_cap_reached' }] });
      expect((await ask(NEXT_DAY)).shown).toEqual([delivery.delivery_id]);
      expect((await ask('2026-06-14T23:59:59Z')).shown).toEqual([delivery.delivery_id]);
    });

    test('when one impression is below max_total_count_per_day, then the person is still eligible that day', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count: 5, max_total_count_per_day: 2 }));
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT });
      expect((await decided(mapi, { user: m('m-1'), event_name: 'app_open', at: AT })).shown).toEqual([delivery.delivery_id]);
    });

    // Impressions are counted whatever the activity and period (the display was already decided), so every
    // delivery below has its caps reached by m-1 and still reports the first rule that holds.
    test('when several rules hold, then the first in §4.1 order is the reason (an inactive delivery outside its period with every cap reached is inactive)', async () => {
      const { mapi } = await customerWith();
      const before = { start: '2025-01-01T00:00:00Z', end: '2025-02-01T00:00:00Z' };
      const allCaps = { max_delivery_count: 1, max_total_count: 1, max_total_count_per_day: 1 };
      const cases: Array<{ body: DeliveryBody; reason: Reason | undefined }> = [
        {
          body: showable({ ...allCaps, is_active: false, trigger: { event_name: ['purchase'], period: [before] }, target: { segmentation_id: 99 } }),
          reason: 'inactive',
        },
        {
          body: showable({ ...allCaps, trigger: { event_name: ['purchase'], period: [before] }, target: { segmentation_id: 99 } }),
          reason: 'event_not_matched',
        },
        { body: showable({ ...allCaps, trigger: { event_name: ['app_open'], period: [before] }, target: { segmentation_id: 99 } }), reason: 'outside_period' },
        { body: showable({ ...allCaps, target: { segmentation_id: 99 } }), reason: 'not_in_segment' },
        { body: showable(allCaps), reason: 'delivery_cap_reached' },
        { body: showable({ max_total_count: 1, max_total_count_per_day: 1 }), reason: 'person_cap_reached' },
        { body: showable({ max_total_count: 5, max_total_count_per_day: 1 }), reason: 'person_daily_cap_reached' },
        { body: showable({ max_total_count: 5, max_total_count_per_day: 2 }), reason: undefined },
      ];
      const made: number[] = [];
      for (const c of cases) {
        const d = await postDelivery(app, mapi, c.body);
        made.push(d.delivery_id);
        expect((await shown(mapi, d.delivery_id, { user: m('m-1'), at: AT })).person_total).toBe(1);
      }
      expect(await decided(mapi, { user: m('m-1'), event_name: 'app_open', at: AT, segments: [7] })).toEqual({
        shown: [made[7]],
        excluded: cases.slice(0, 7).map((c, i) => ({ delivery_id: made[i], reason: c.reason })),
      });
    });
  });

  // ------------------------------------------------------------------ eligibility: periods and segments
  describe('eligibility: periods compared as instants, segments absent or given', () => {
    // [00:00Z, 01:00Z) on 2026-06-01, written in two other offsets.
    const PERIOD = { start: '2026-06-01T09:00:00+09:00', end: '2026-06-01T02:00:00+01:00' };
    let mapi: string;
    let deliveryId: number;
    beforeAll(async () => {
      const c = await oneDelivery(showable({ trigger: { event_name: ['app_open'], period: [PERIOD] } }));
      mapi = c.mapi;
      deliveryId = c.delivery.delivery_id;
    });

    test.each([
      { at: '2026-05-31T23:59:59.999Z', inside: false, what: '1 ms before start' },
      { at: '2026-06-01T08:59:59.999+09:00', inside: false, what: '1 ms before start, in the start offset' },
      { at: '2026-06-01T00:00:00Z', inside: true, what: 'exactly start, in UTC' },
      { at: '2026-06-01T09:00:00+09:00', inside: true, what: 'exactly start, as written' },
      { at: '2026-05-31T19:00:00-05:00', inside: true, what: 'exactly start, on the day before in its offset' },
      { at: '2026-06-01T00:30:00z', inside: true, what: 'inside, with a lower-case z' },
      { at: '2026-06-01T00:59:59.999Z', inside: true, what: '1 ms before end' },
      { at: '2026-06-01T01:59:59.999+01:00', inside: true, what: '1 ms before end, in the end offset' },
      { at: '2026-06-01T01:00:00Z', inside: false, what: 'exactly end, in UTC' },
      { at: '2026-06-01T02:00:00+01:00', inside: false, what: 'exactly end, as written' },
      { at: '2026-06-01T10:00:00+09:00', inside: false, what: 'exactly end, in the start offset' },
      { at: '2026-06-01T01:30:00+01:00', inside: true, what: 'a local time before 01:00 that is inside' },
      { at: '2026-06-01T00:30:00-01:00', inside: false, what: 'a local time before 01:00 that is after end' },
    ])('when at is $at ($what), then it is eligible: $inside', async ({ at, inside }) => {
      expect(await decided(mapi, { user: m('m-1'), event_name: 'app_open', at })).toEqual(
        inside ? { shown: [deliveryId], excluded: [] } : { shown: [], excluded: [{ delivery_id: deliveryId, reason: 'outside_period' }] },
      );
    });

    describe('segments', () => {
      let segMapi: string;
      let seven: number;
      let zeroSeg: number;
      beforeAll(async () => {
        const c = await customerWith();
        segMapi = c.mapi;
        seven = (await postDelivery(app, segMapi, showable({ target: { segmentation_id: 7 } }))).delivery_id;
        zeroSeg = (await postDelivery(app, segMapi, showable({ target: { segmentation_id: 0 } }))).delivery_id;
      });
      const notIn = (deliveryIdOf: number) => ({ delivery_id: deliveryIdOf, reason: 'not_in_segment' });

      test.each([
        { name: 'absent', segments: undefined, shown: () => [seven, zeroSeg], excluded: () => [] },
        { name: 'an empty list (given: nothing matches)', segments: [], shown: () => [], excluded: () => [notIn(seven), notIn(zeroSeg)] },
        { name: '[7]', segments: [7], shown: () => [seven], excluded: () => [notIn(zeroSeg)] },
        { name: '[0]', segments: [0], shown: () => [zeroSeg], excluded: () => [notIn(seven)] },
        { name: '[7, 0, 7]', segments: [7, 0, 7], shown: () => [seven, zeroSeg], excluded: () => [] },
        { name: '[3, 8, 70]', segments: [3, 8, 70], shown: () => [], excluded: () => [notIn(seven), notIn(zeroSeg)] },
        {
          name: '1000 segments holding 7 last',
          segments: [...Array.from({ length: 999 }, (_, i) => i + 100), 7],
          shown: () => [seven],
          excluded: () => [notIn(zeroSeg)],
        },
      ])('when segments are $name, then the right deliveries are shown', async ({ segments, shown: expectedShown, excluded }) => {
        expect(await decided(segMapi, { user: m('m-1'), event_name: 'app_open', at: AT, ...(segments === undefined ? {} : { segments }) })).toEqual({
          shown: expectedShown(),
          excluded: excluded(),
        });
      });
    });
  });

  // ------------------------------------------------------------------ impressions: counting
  describe('impressions: what is counted', () => {
    test('when a display is recorded, then 201 with the counts right after it, and GET and the list show delivery_count 1', async () => {
      const { mapi, delivery } = await oneDelivery();
      const res = await impression(mapi, delivery.delivery_id, {
        user: device('d-9'),
        platform: 'android',
        at: '2026-12-01T09:00:05+09:00',
        idempotency_key: '5d1c-0001',
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ delivery_id: delivery.delivery_id, delivery_count: 1, person_total: 1, person_today: 1 });
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      const after = await read(mapi, delivery.delivery_id);
      expect(counts(after)).toEqual({ delivery_count: 1, iphone_delivery_count: 0, android_delivery_count: 1 });
      // Nothing but the counts changed.
      expect({ ...after, condition: { ...after.condition, ...zero } }).toEqual(delivery);
      expect((await listPage(app, mapi)).items).toEqual([after]);
    });

    test('when displays come from ios, android, other and no platform, then delivery_count counts all four, and each platform counter its own', async () => {
      const { mapi, delivery } = await oneDelivery();
      const answers: Answer[] = [];
      for (const platform of ['ios', 'android', 'other', undefined, 'ios']) {
        answers.push(await shown(mapi, delivery.delivery_id, { user: m(`m-${answers.length}`), at: AT, ...(platform ? { platform } : {}) }));
      }
      expect(answers.map((a) => [a.delivery_count, a.person_total, a.person_today])).toEqual([
        [1, 1, 1],
        [2, 1, 1],
        [3, 1, 1],
        [4, 1, 1],
        [5, 1, 1],
      ]);
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual({ delivery_count: 5, iphone_delivery_count: 2, android_delivery_count: 1 });
    });

    test('when one person is shown on two days, then person_total counts all and person_today only the day of at', async () => {
      const { mapi, delivery } = await oneDelivery();
      const at = ['2026-06-15T00:00:00Z', '2026-06-15T23:59:59.999Z', '2026-06-16T00:00:00Z', '2026-06-15T12:00:00+09:00', '2026-06-16T20:00:00-04:00'];
      const answers: Answer[] = [];
      for (const when of at) answers.push(await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: when }));
      // The fourth is 03:00Z on the 15th; the fifth is 00:00Z on the 17th.
      expect(answers.map((a) => [a.person_total, a.person_today])).toEqual([
        [1, 1],
        [2, 2],
        [3, 1],
        [4, 3],
        [5, 1],
      ]);
      expect(answers.map((a) => a.delivery_count)).toEqual([1, 2, 3, 4, 5]);
    });

    test('when the delivery is inactive and at is outside its period, then the display is counted anyway: the display was decided', async () => {
      const { mapi, delivery } = await oneDelivery(
        showable({ is_active: false, trigger: { event_name: ['purchase'], period: [{ start: '2020-01-01T00:00:00Z', end: '2020-02-01T00:00:00Z' }] } }),
      );
      expect(await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT })).toEqual({
        delivery_id: delivery.delivery_id,
        delivery_count: 1,
        person_total: 1,
        person_today: 1,
      });
    });

    test("when a person is shown two deliveries, then each delivery's counts are its own", async () => {
      const { mapi } = await customerWith();
      const a = await postDelivery(app, mapi, showable());
      const b = await postDelivery(app, mapi, showable());
      await shown(mapi, a.delivery_id, { user: m('m-1'), at: AT });
      await shown(mapi, a.delivery_id, { user: m('m-1'), at: AT });
      expect(await shown(mapi, b.delivery_id, { user: m('m-1'), at: AT })).toEqual({
        delivery_id: b.delivery_id,
        delivery_count: 1,
        person_total: 1,
        person_today: 1,
      });
      expect(counts(await read(mapi, a.delivery_id)).delivery_count).toBe(2);
      expect(counts(await read(mapi, b.delivery_id)).delivery_count).toBe(1);
    });

    test('when at is absent, then the display counts on the calendar day of now', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count_per_day: 5 }));
      // Retried once should the UTC day change between the two requests.
      for (let attempt = 0; ; attempt++) {
        const day = new Date().toISOString().slice(0, 10);
        const first = await shown(mapi, delivery.delivery_id, { user: m(`m-${attempt}`) });
        const second = await shown(mapi, delivery.delivery_id, { user: m(`m-${attempt}`), at: new Date().toISOString() });
        if (day !== new Date().toISOString().slice(0, 10) && attempt === 0) continue;
        expect([first.person_today, second.person_today, second.person_total]).toEqual([1, 2, 2]);
        break;
      }
    });

    test('when an ID no node holds is shown, then it is a person of its own; once a node links it, its impressions count for that person', async () => {
      const { customer, mapi, delivery } = await oneDelivery();
      expect((await shown(mapi, delivery.delivery_id, { user: device('d-free'), at: AT })).person_total).toBe(1);
      expect((await shown(mapi, delivery.delivery_id, { user: device('d-free'), at: AT })).person_total).toBe(2);
      expect((await shown(mapi, delivery.delivery_id, { user: m('m-9'), at: AT })).person_total).toBe(1);
      await createNode(app, customer, { schema: 'member', key: m('m-9'), ids: [device('d-free')] });
      expect(await shown(mapi, delivery.delivery_id, { user: m('m-9'), at: AT })).toEqual({
        delivery_id: delivery.delivery_id,
        delivery_count: 4,
        person_total: 4,
        person_today: 4,
      });
    });
  });

  // ------------------------------------------------------------------ people: linked IDs
  describe('a person is every ID linked to the user', () => {
    test("when two linked devices of one person are shown, then the person's max_total_count is reached through either and the next is 409 through any", async () => {
      const { customer, mapi, delivery } = await oneDelivery(showable({ max_total_count: 3, max_total_count_per_day: 10 }));
      await createNode(app, customer, { schema: 'member', key: m('m-1'), ids: [device('d-a'), device('d-b')] });
      const answers = [
        await shown(mapi, delivery.delivery_id, { user: device('d-a'), platform: 'ios', at: AT }),
        await shown(mapi, delivery.delivery_id, { user: device('d-b'), platform: 'android', at: AT }),
        await shown(mapi, delivery.delivery_id, { user: device('d-a'), platform: 'ios', at: NEXT_DAY }),
      ];
      expect(answers.map((a) => [a.delivery_count, a.person_total, a.person_today])).toEqual([
        [1, 1, 1],
        [2, 2, 2],
        [3, 3, 1],
      ]);
      for (const user of [device('d-b'), device('d-a'), m('m-1')])
        expectCap(await impression(mapi, delivery.delivery_id, { user, at: '2026-07-01T00:00:00Z' }), 'max_total_count');
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual({ delivery_count: 3, iphone_delivery_count: 2, android_delivery_count: 1 });
      expect(await decided(mapi, { user: device('d-b'), event_name: 'app_open', at: AT })).toEqual({
        shown: [],
        excluded: [{ delivery_id: delivery.delivery_id, reason: 'person_cap_reached' }],
      });
      // Another person is not held back.
      expect((await shown(mapi, delivery.delivery_id, { user: device('d-z'), at: AT })).person_total).toBe(1);
    });

    test('when the person spans two nodes linked by a shared cookie, then a display through either node counts for both', async () => {
      const { customer, mapi, delivery } = await oneDelivery(showable({ max_total_count_per_day: 2 }));
      await createNode(app, customer, { schema: 'member', key: m('m-1'), ids: [cookie('c-shared'), device('d-1')] });
      await createNode(app, customer, { schema: 'member', key: m('m-2'), ids: [cookie('c-shared'), device('d-2')] });
      await shown(mapi, delivery.delivery_id, { user: device('d-1'), at: AT });
      expect((await shown(mapi, delivery.delivery_id, { user: device('d-2'), at: AT })).person_today).toBe(2);
      expectCap(await impression(mapi, delivery.delivery_id, { user: m('m-1'), at: AT }), 'max_total_count_per_day');
      expect(await decided(mapi, { user: m('m-2'), event_name: 'app_open', at: AT })).toEqual({
        shown: [],
        excluded: [{ delivery_id: delivery.delivery_id, reason: 'person_daily_cap_reached' }],
      });
    });

    test('when two nodes share only an ID of a type that never links, then they are two people', async () => {
      const { customer, mapi, delivery } = await oneDelivery(showable({ max_total_count: 1 }));
      await createNode(app, customer, { schema: 'member', key: m('m-1'), ids: [ip('10.0.0.1')] });
      await createNode(app, customer, { schema: 'member', key: m('m-2'), ids: [ip('10.0.0.1')] });
      expect((await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT })).person_total).toBe(1);
      expect((await shown(mapi, delivery.delivery_id, { user: m('m-2'), at: AT })).person_total).toBe(1);
      expectCap(await impression(mapi, delivery.delivery_id, { user: m('m-1'), at: AT }), 'max_total_count');
    });

    test('when two people are linked by an insert, then their counts add up; when the linking ID is deleted, they split again', async () => {
      const { customer, mapi, delivery } = await oneDelivery();
      await createNode(app, customer, { schema: 'member', key: m('m-1'), ids: [device('d-1')] });
      await createNode(app, customer, { schema: 'member', key: m('m-2'), ids: [device('d-2')] });
      const show = async (user: IdPairBody) => (await shown(mapi, delivery.delivery_id, { user, at: AT })).person_total;
      expect([await show(device('d-1')), await show(device('d-1')), await show(m('m-2'))]).toEqual([1, 2, 1]);

      // m-1 takes d-2 as well: one person, 2 + 1 so far.
      await nodeWrite(customer, '_insert', { schema: 'member', key: m('m-1'), ids: [device('d-2')] });
      expect(await show(m('m-1'))).toBe(4);
      expect(await show(m('m-2'))).toBe(5);

      // m-1 lets d-2 go: m-1's side holds d-1 (2) and m-1 (1); m-2's side holds m-2 (2).
      const res = await nodeCall(customer, '_delete', { schema: 'member', key: m('m-1'), where: device('d-2') });
      expect(res.status).toBe(204);
      expect(await show(device('d-1'))).toBe(4);
      expect(await show(device('d-2'))).toBe(3);
      expect(counts(await read(mapi, delivery.delivery_id)).delivery_count).toBe(7);
    });
  });

  // ------------------------------------------------------------------ caps
  describe('409 cap_reached', () => {
    test('when max_delivery_count is reached by two people, then a third is 409 naming max_delivery_count and nothing is counted', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_delivery_count: 2 }));
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT });
      await shown(mapi, delivery.delivery_id, { user: m('m-2'), platform: 'ios', at: AT });
      const res = await impression(mapi, delivery.delivery_id, { user: m('m-3'), platform: 'ios', at: AT });
      expectCap(res, 'max_delivery_count');
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual({ delivery_count: 2, iphone_delivery_count: 1, android_delivery_count: 0 });
      expect(await decided(mapi, { user: m('m-3'), event_name: 'app_open', at: AT })).toEqual({
        shown: [],
        excluded: [{ delivery_id: delivery.delivery_id, reason: 'delivery_cap_reached' }],
      });
    });

    test('when the person has reached max_total_count on other days, then 409 naming max_total_count, and nothing is counted for them', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count: 2, max_total_count_per_day: 5 }));
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: '2026-06-01T12:00:00Z' });
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: '2026-06-02T12:00:00Z' });
      expectCap(await impression(mapi, delivery.delivery_id, { user: m('m-1'), platform: 'android', at: AT }), 'max_total_count');
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual({ delivery_count: 2, iphone_delivery_count: 0, android_delivery_count: 0 });
      // The refused one left no trace: on its day the person still has none (the cap raised, the day's first is 1).
      const raised = await app.call('PUT', `/v1/delivery/${delivery.delivery_id}`, asMapi(mapi, showable({ max_total_count: 3, max_total_count_per_day: 5 })));
      expect(raised.status).toBe(200);
      expect(await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT })).toEqual({
        delivery_id: delivery.delivery_id,
        delivery_count: 3,
        person_total: 3,
        person_today: 1,
      });
    });

    test('when the person has reached max_total_count_per_day, then 409 naming it; the next day is counted, and the refused one is not', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count: 10, max_total_count_per_day: 2 }));
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT });
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT });
      expectCap(await impression(mapi, delivery.delivery_id, { user: m('m-1'), at: '2026-06-15T23:59:59Z' }), 'max_total_count_per_day');
      expect(await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: NEXT_DAY })).toEqual({
        delivery_id: delivery.delivery_id,
        delivery_count: 3,
        person_total: 3,
        person_today: 1,
      });
    });

    test('when all three caps are reached, then the cap named is max_delivery_count; with the person caps only, max_total_count', async () => {
      const { mapi } = await customerWith();
      const all = await postDelivery(app, mapi, showable({ max_delivery_count: 1, max_total_count: 1, max_total_count_per_day: 1 }));
      const person = await postDelivery(app, mapi, showable({ max_total_count: 1, max_total_count_per_day: 1 }));
      await shown(mapi, all.delivery_id, { user: m('m-1'), at: AT });
      await shown(mapi, person.delivery_id, { user: m('m-1'), at: AT });
      expectCap(await impression(mapi, all.delivery_id, { user: m('m-1'), at: AT }), 'max_delivery_count');
      expectCap(await impression(mapi, person.delivery_id, { user: m('m-1'), at: AT }), 'max_total_count');
      expect(counts(await read(mapi, all.delivery_id)).delivery_count).toBe(1);
      expect(counts(await read(mapi, person.delivery_id)).delivery_count).toBe(1);
    });
  });

  // ------------------------------------------------------------------ idempotency
  describe('idempotency keys', () => {
    test('when an impression is repeated with its key, then 201 with the first answer and Idempotent-Replayed: true, and nothing is counted', async () => {
      const { mapi, delivery } = await oneDelivery();
      const body = { user: m('m-1'), platform: 'ios', at: AT, idempotency_key: 'k-1' };
      const first = await impression(mapi, delivery.delivery_id, body);
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const again = await impression(mapi, delivery.delivery_id, body);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual({ delivery_count: 1, iphone_delivery_count: 1, android_delivery_count: 0 });
      expect((await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT })).person_total).toBe(2);
    });

    test('when the repeat says something else (another person, platform, day), then it still answers the first answer and counts nothing', async () => {
      const { mapi, delivery } = await oneDelivery();
      const first = await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'k-1' });
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT });
      const again = await impression(mapi, delivery.delivery_id, { user: device('d-other'), platform: 'android', at: NEXT_DAY, idempotency_key: 'k-1' });
      expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first]);
      expect(first).toEqual({ delivery_id: delivery.delivery_id, delivery_count: 1, person_total: 1, person_today: 1 });
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual({ delivery_count: 2, iphone_delivery_count: 0, android_delivery_count: 0 });
      expect((await shown(mapi, delivery.delivery_id, { user: device('d-other'), at: NEXT_DAY })).person_total).toBe(1);
    });

    test('when the same key is used for another delivery, or by another customer, then it is counted there: keys are per delivery', async () => {
      const a = await customerWith();
      const a1 = await postDelivery(app, a.mapi, showable());
      const a2 = await postDelivery(app, a.mapi, showable());
      const b = await oneDelivery();
      expect(b.delivery.delivery_id).toBe(a1.delivery_id);
      await shown(a.mapi, a1.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'shared-key' });
      expect(await shown(a.mapi, a2.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'shared-key' })).toEqual({
        delivery_id: a2.delivery_id,
        delivery_count: 1,
        person_total: 1,
        person_today: 1,
      });
      expect(await shown(b.mapi, b.delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'shared-key' })).toEqual({
        delivery_id: b.delivery.delivery_id,
        delivery_count: 1,
        person_total: 1,
        person_today: 1,
      });
    });

    test('when an impression with a key is refused with 409, then a repeat is decided again and, once the cap allows, counted', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count: 1 }));
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT });
      const refused = await impression(mapi, delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'k-retry' });
      expectCap(refused, 'max_total_count');
      expect(refused.headers['idempotent-replayed']).toBeUndefined();
      expectCap(await impression(mapi, delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'k-retry' }), 'max_total_count');
      expect((await app.call('PUT', `/v1/delivery/${delivery.delivery_id}`, asMapi(mapi, showable({ max_total_count: 2 })))).status).toBe(200);
      const counted = await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'k-retry' });
      expect(counted).toEqual({ delivery_id: delivery.delivery_id, delivery_count: 2, person_total: 2, person_today: 2 });
      const replay = await impression(mapi, delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'k-retry' });
      expect([replay.status, replay.headers['idempotent-replayed'], replay.body]).toEqual([201, 'true', counted]);
    });

    test('when a key has 1 or 128 characters, then it is accepted and remembered', async () => {
      const { mapi, delivery } = await oneDelivery();
      for (const key of ['k', 'k'.repeat(128)]) {
        const first = await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: key });
        const again = await impression(mapi, delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: key });
        expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first]);
      }
      expect(counts(await read(mapi, delivery.delivery_id)).delivery_count).toBe(2);
    });

    test('when two keys differ only in case, then they are two keys', async () => {
      const { mapi, delivery } = await oneDelivery();
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'Key-A' });
      expect((await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'key-a' })).delivery_count).toBe(2);
    });
  });

  // ------------------------------------------------------------------ lifecycle of the delivery
  describe('PUT keeps the counts, DELETE removes the impressions', () => {
    test('when a counted delivery is replaced, then its counts are kept (whatever the body says) and the person counts go on', async () => {
      const { mapi, delivery } = await oneDelivery();
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), platform: 'ios', at: AT });
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), platform: 'android', at: AT });
      const body = showable({ delivery_count: 0, iphone_delivery_count: 0, android_delivery_count: 0, category: 'renamed' }, { name: 'replaced' });
      const res = await app.call('PUT', `/v1/delivery/${delivery.delivery_id}`, asMapi(mapi, body));
      expect(res.status).toBe(200);
      const expected = { delivery_count: 2, iphone_delivery_count: 1, android_delivery_count: 1 };
      expect(counts(res.body as Delivery)).toEqual(expected);
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual(expected);
      expect(await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT })).toEqual({
        delivery_id: delivery.delivery_id,
        delivery_count: 3,
        person_total: 3,
        person_today: 3,
      });
    });

    test('when a replacement lowers a cap below what was counted, then the next impression is 409 and eligibility says so', async () => {
      const { mapi, delivery } = await oneDelivery();
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT });
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT });
      expect((await app.call('PUT', `/v1/delivery/${delivery.delivery_id}`, asMapi(mapi, showable({ max_total_count: 1 })))).status).toBe(200);
      expectCap(await impression(mapi, delivery.delivery_id, { user: m('m-1'), at: AT }), 'max_total_count');
      expect(await decided(mapi, { user: m('m-1'), event_name: 'app_open', at: AT })).toEqual({
        shown: [],
        excluded: [{ delivery_id: delivery.delivery_id, reason: 'person_cap_reached' }],
      });
    });

    test('when a counted delivery is deleted, then GET and impressions are 404, eligibility no longer names it, and a new delivery starts from nothing', async () => {
      const { mapi } = await customerWith();
      const kept = await postDelivery(app, mapi, showable());
      const gone = await postDelivery(app, mapi, showable({ max_total_count: 2 }));
      await shown(mapi, gone.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'k-gone' });
      await shown(mapi, gone.delivery_id, { user: m('m-1'), at: AT });
      const sweeps = jest.spyOn(app.store, 'sweepDeletedDeliveries');
      expect((await app.call('DELETE', `/v1/delivery/${gone.delivery_id}`, asMapi(mapi))).status).toBe(204);
      // The delete began the sweep of what the delivery left, in the background; once it ends, nothing is left.
      expect(sweeps).toHaveBeenCalled();
      await Promise.all(sweeps.mock.results.map((r) => r.value));
      sweeps.mockRestore();
      await expect(app.store.sweepDeletedDeliveries(1000)).resolves.toBe(0);

      expectProblem(await app.call('GET', `/v1/delivery/${gone.delivery_id}`, asMapi(mapi)), 404, 'delivery_not_found');
      expectProblem(await impression(mapi, gone.delivery_id, { user: m('m-1'), at: AT }), 404, 'delivery_not_found');
      expectProblem(await impression(mapi, gone.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'k-gone' }), 404, 'delivery_not_found');
      expect(await decided(mapi, { user: m('m-1'), event_name: 'app_open', at: AT })).toEqual({ shown: [kept.delivery_id], excluded: [] });

      // Whatever id the next delivery gets, none of the deleted one's impressions or keys count for it.
      const next = await postDelivery(app, mapi, showable({ max_total_count: 2 }));
      expect(counts(next)).toEqual(zero);
      expect(await shown(mapi, next.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'k-gone' })).toEqual({
        delivery_id: next.delivery_id,
        delivery_count: 1,
        person_total: 1,
        person_today: 1,
      });
    });
  });

  // ------------------------------------------------------------------ erasure
  describe('an erase takes the impressions of the values it erases', () => {
    test("when the person is erased (with the customer's bearer token), then their impressions are gone: person_total starts again from 1", async () => {
      const { customer, mapi, delivery } = await oneDelivery(showable({ max_total_count: 3 }));
      const bearer = (await issueToken(app, customer, 'bearer')).token;
      await createNode(app, customer, { schema: 'member', key: m('m-1'), ids: [device('d-1')] });
      await shown(mapi, delivery.delivery_id, { user: device('d-1'), at: AT });
      await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT });
      await shown(mapi, delivery.delivery_id, { user: device('d-1'), at: AT });
      expectCap(await impression(mapi, delivery.delivery_id, { user: device('d-1'), at: AT }), 'max_total_count');

      const erased = await app.call('POST', `/v1/${customer}/_erase`, { token: bearer, body: { id: device('d-1'), scope: 'person' } });
      expect([erased.status, erased.body]).toEqual([200, { nodes_deleted: 1, ids_removed: 0 }]);
      expect((await shown(mapi, delivery.delivery_id, { user: device('d-1'), at: AT })).person_total).toBe(1);
      expect((await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT })).person_total).toBe(1);
      expect(await decided(mapi, { user: device('d-1'), event_name: 'app_open', at: AT, segments: [7] })).toEqual({
        shown: [delivery.delivery_id],
        excluded: [],
      });
    });

    test('when one ID is erased (administrator, scope id), then only the impressions recorded against it go', async () => {
      const { customer, mapi, delivery } = await oneDelivery();
      await createNode(app, customer, { schema: 'member', key: m('m-1'), ids: [device('d-1'), cookie('c-1')] });
      await shown(mapi, delivery.delivery_id, { user: device('d-1'), at: AT });
      await shown(mapi, delivery.delivery_id, { user: device('d-1'), at: AT });
      await shown(mapi, delivery.delivery_id, { user: cookie('c-1'), at: AT });
      const erased = await app.call('POST', `/v1/${customer}/_erase`, { token: ADMIN_TOKEN, body: { id: device('d-1') } });
      expect([erased.status, erased.body]).toEqual([200, { nodes_deleted: 0, ids_removed: 1 }]);
      // m-1 keeps c-1's impression; d-1, no longer held, starts again.
      expect((await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT })).person_total).toBe(2);
      expect((await shown(mapi, delivery.delivery_id, { user: device('d-1'), at: AT })).person_total).toBe(1);
    });

    test('when an ID no node holds is erased, then the impressions recorded against it go too', async () => {
      const { customer, mapi, delivery } = await oneDelivery();
      await shown(mapi, delivery.delivery_id, { user: device('d-loose'), at: AT });
      await shown(mapi, delivery.delivery_id, { user: device('d-loose'), at: AT });
      const erased = await app.call('POST', `/v1/${customer}/_erase`, { token: ADMIN_TOKEN, body: { id: device('d-loose') } });
      expect([erased.status, erased.body]).toEqual([200, { nodes_deleted: 0, ids_removed: 0 }]);
      expect((await shown(mapi, delivery.delivery_id, { user: device('d-loose'), at: AT })).person_total).toBe(1);
    });
  });

  // ------------------------------------------------------------------ the customer's time zone
  describe("per-day caps follow the customer's time zone", () => {
    test('when the time zone is Europe/Berlin, then on the spring DST day 00:30 CET and 23:30 CEST are one day, and 00:30 CEST the next', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count_per_day: 2 }), 'Europe/Berlin');
      const d = delivery.delivery_id;
      expect(await shown(mapi, d, { user: m('m-1'), at: '2026-03-28T23:30:00Z' })).toMatchObject({ person_total: 1, person_today: 1 });
      expect(await shown(mapi, d, { user: m('m-1'), at: '2026-03-29T21:30:00Z' })).toMatchObject({ person_total: 2, person_today: 2 });
      expectCap(await impression(mapi, d, { user: m('m-1'), at: '2026-03-29T12:00:00+02:00' }), 'max_total_count_per_day');
      expectCap(await impression(mapi, d, { user: m('m-1'), at: '2026-03-29T21:59:59Z' }), 'max_total_count_per_day');
      expect(await shown(mapi, d, { user: m('m-1'), at: '2026-03-29T22:30:00Z' })).toMatchObject({ person_total: 3, person_today: 1 });
      // The day before the switch ends at 23:00Z.
      expect(await shown(mapi, d, { user: m('m-1'), at: '2026-03-28T22:59:59Z' })).toMatchObject({ person_total: 4, person_today: 1 });

      const ask = (at: string) => decided(mapi, { user: m('m-1'), event_name: 'app_open', at });
      const daily = { shown: [], excluded: [{ delivery_id: d, reason: 'person_daily_cap_reached' }] };
      expect(await ask('2026-03-28T23:00:00Z')).toEqual(daily);
      expect(await ask('2026-03-29T21:59:59.999Z')).toEqual(daily);
      expect(await ask('2026-03-29T22:00:00Z')).toEqual({ shown: [d], excluded: [] });
    });

    test('when the time zone is Europe/Berlin, then the autumn DST day (25 hours) is one day from 22:00Z to 23:00Z the next', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count_per_day: 2 }), 'Europe/Berlin');
      const d = delivery.delivery_id;
      expect((await shown(mapi, d, { user: m('m-1'), at: '2026-10-24T22:00:00Z' })).person_today).toBe(1);
      expect((await shown(mapi, d, { user: m('m-1'), at: '2026-10-25T22:59:59Z' })).person_today).toBe(2);
      expectCap(await impression(mapi, d, { user: m('m-1'), at: '2026-10-25T02:30:00+01:00' }), 'max_total_count_per_day');
      expect((await shown(mapi, d, { user: m('m-1'), at: '2026-10-25T23:00:00Z' })).person_today).toBe(1);
      expect((await shown(mapi, d, { user: m('m-1'), at: '2026-10-24T21:59:59Z' })).person_today).toBe(1);
    });

    test('when the time zone is Asia/Tokyo, then 14:59:59Z is Dec 1 and 15:00:00Z Dec 2; under UTC (set, or by default) both are Dec 1', async () => {
      const tokyo = await oneDelivery(showable({ max_total_count_per_day: 1 }), 'Asia/Tokyo');
      const utc = await oneDelivery(showable({ max_total_count_per_day: 1 }), 'UTC');
      const byDefault = await oneDelivery(showable({ max_total_count_per_day: 1 }));
      for (const c of [tokyo, utc, byDefault]) {
        expect((await shown(c.mapi, c.delivery.delivery_id, { user: m('m-1'), at: '2026-12-01T14:59:59Z' })).person_today).toBe(1);
      }
      expect(await shown(tokyo.mapi, tokyo.delivery.delivery_id, { user: m('m-1'), at: '2026-12-01T15:00:00Z' })).toMatchObject({
        person_total: 2,
        person_today: 1,
      });
      for (const c of [utc, byDefault]) {
        expectCap(await impression(c.mapi, c.delivery.delivery_id, { user: m('m-1'), at: '2026-12-01T15:00:00Z' }), 'max_total_count_per_day');
        expectCap(await impression(c.mapi, c.delivery.delivery_id, { user: m('m-1'), at: '2026-12-02T08:59:59+09:00' }), 'max_total_count_per_day');
        expect((await shown(c.mapi, c.delivery.delivery_id, { user: m('m-1'), at: '2026-12-02T09:00:00+09:00' })).person_today).toBe(1);
      }
      // Eligibility reads the day the same way.
      expect((await decided(tokyo.mapi, { user: m('m-1'), event_name: 'app_open', at: '2026-12-01T14:00:00Z' })).excluded).toEqual([
        { delivery_id: tokyo.delivery.delivery_id, reason: 'person_daily_cap_reached' },
      ]);
      expect((await decided(tokyo.mapi, { user: m('m-1'), event_name: 'app_open', at: '2026-11-30T15:00:00Z' })).excluded).toEqual([
        { delivery_id: tokyo.delivery.delivery_id, reason: 'person_daily_cap_reached' },
      ]);
      expect((await decided(tokyo.mapi, { user: m('m-1'), event_name: 'app_open', at: '2026-11-30T14:59:59Z' })).shown).toEqual([tokyo.delivery.delivery_id]);
      expect((await decided(utc.mapi, { user: m('m-1'), event_name: 'app_open', at: '2026-12-02T00:00:00Z' })).excluded).toEqual([
        { delivery_id: utc.delivery.delivery_id, reason: 'person_daily_cap_reached' },
      ]);
      expect((await decided(utc.mapi, { user: m('m-1'), event_name: 'app_open', at: '2026-12-03T00:00:00Z' })).shown).toEqual([utc.delivery.delivery_id]);
    });

    test('when the time zone is Asia/Kolkata (+05:30), then the day changes at 18:30Z', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count_per_day: 1 }), 'Asia/Kolkata');
      expect((await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: '2026-12-31T18:29:59Z' })).person_today).toBe(1);
      expect((await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: '2026-12-31T18:30:00Z' })).person_today).toBe(1);
      expectCap(await impression(mapi, delivery.delivery_id, { user: m('m-1'), at: '2027-01-01T00:00:00+05:30' }), 'max_total_count_per_day');
    });
  });

  // ------------------------------------------------------------------ validation
  describe('400 validation_failed, and nothing counted', () => {
    const long = (n: number) => 'x'.repeat(n);
    const eligibleBase = { user: m('m-1'), event_name: 'app_open', platform: 'ios', at: AT, segments: [7], explain: true };
    const without = (body: Record<string, unknown>, field: string) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== field));

    const sharedUserCases = (base: Record<string, unknown>) => [
      { name: 'user is missing', body: without(base, 'user'), path: '/body/user' },
      { name: 'user is a string', body: { ...base, user: 'm-1' }, path: '/body/user' },
      { name: 'user is null', body: { ...base, user: null }, path: '/body/user' },
      { name: 'user has no id', body: { ...base, user: { type: 'member_id' } }, path: '/body/user/id' },
      { name: 'user has no type', body: { ...base, user: { id: 'm-1' } }, path: '/body/user/type' },
      { name: 'user type has a space', body: { ...base, user: { type: 'member id', id: 'm-1' } }, path: '/body/user/type' },
      { name: 'user type has 65 characters', body: { ...base, user: { type: 't'.repeat(65), id: 'm-1' } }, path: '/body/user/type' },
      { name: 'user type is a number', body: { ...base, user: { type: 7, id: 'm-1' } }, path: '/body/user/type' },
      { name: 'user id is empty', body: { ...base, user: { type: 'member_id', id: '' } }, path: '/body/user/id' },
      { name: 'user id has 1025 characters', body: { ...base, user: { type: 'member_id', id: long(1025) } }, path: '/body/user/id' },
      { name: 'user id is a number', body: { ...base, user: { type: 'member_id', id: 1 } }, path: '/body/user/id' },
      { name: 'user has an unknown field', body: { ...base, user: { type: 'member_id', id: 'm-1', schema: 'member' } }, path: '/body/user/schema' },
      { name: 'platform is windows', body: { ...base, platform: 'windows' }, path: '/body/platform' },
      { name: 'platform is IOS', body: { ...base, platform: 'IOS' }, path: '/body/platform' },
      { name: 'platform is null', body: { ...base, platform: null }, path: '/body/platform' },
      { name: 'at has no offset', body: { ...base, at: '2026-06-15T12:00:00' }, path: '/body/at' },
      { name: 'at is a date only', body: { ...base, at: '2026-06-15' }, path: '/body/at' },
      { name: 'at is not a date', body: { ...base, at: 'tomorrow' }, path: '/body/at' },
      { name: 'at is February 30th', body: { ...base, at: '2026-02-30T00:00:00Z' }, path: '/body/at' },
      { name: 'at is a number', body: { ...base, at: 1781524800000 }, path: '/body/at' },
      { name: 'at is a leap second', body: { ...base, at: '2016-12-31T23:59:60Z' }, path: '/body/at' },
      { name: 'at is a leap second in another offset', body: { ...base, at: '2017-01-01T08:59:60+09:00' }, path: '/body/at' },
      { name: 'at has second 60 outside a leap second', body: { ...base, at: '2026-06-15T12:00:60Z' }, path: '/body/at' },
      { name: 'the body has an unknown field', body: { ...base, colour: 'red' }, path: '/body/colour' },
    ];
    const eligibleCases = [
      ...sharedUserCases(eligibleBase),
      { name: 'event_name is missing', body: without(eligibleBase, 'event_name'), path: '/body/event_name' },
      { name: 'event_name is empty', body: { ...eligibleBase, event_name: '' }, path: '/body/event_name' },
      { name: 'event_name has 101 characters', body: { ...eligibleBase, event_name: long(101) }, path: '/body/event_name' },
      { name: 'event_name is a list', body: { ...eligibleBase, event_name: ['app_open'] }, path: '/body/event_name' },
      { name: 'segments hold a string', body: { ...eligibleBase, segments: [7, '3'] }, path: '/body/segments/1' },
      { name: 'segments hold a fraction', body: { ...eligibleBase, segments: [1.5] }, path: '/body/segments/0' },
      { name: 'segments hold a negative number', body: { ...eligibleBase, segments: [7, -1] }, path: '/body/segments/1' },
      { name: 'segments hold null', body: { ...eligibleBase, segments: [null] }, path: '/body/segments/0' },
      { name: 'segments are 1001', body: { ...eligibleBase, segments: Array.from({ length: 1001 }, (_, i) => i) }, path: '/body/segments' },
      { name: 'segments are a number', body: { ...eligibleBase, segments: 7 }, path: '/body/segments' },
      { name: 'segments hold 2^53', body: { ...eligibleBase, segments: [2 ** 53] }, path: '/body/segments/0' },
      { name: 'explain is "true"', body: { ...eligibleBase, explain: 'true' }, path: '/body/explain' },
      { name: 'explain is 1', body: { ...eligibleBase, explain: 1 }, path: '/body/explain' },
      { name: 'the body has idempotency_key', body: { ...eligibleBase, idempotency_key: 'k' }, path: '/body/idempotency_key' },
    ];

    const impressionBase = { user: m('m-1'), platform: 'ios', at: AT, idempotency_key: 'k-valid' };
    const impressionCases = [
      ...sharedUserCases(impressionBase),
      { name: 'idempotency_key is empty', body: { ...impressionBase, idempotency_key: '' }, path: '/body/idempotency_key' },
      { name: 'idempotency_key has 129 characters', body: { ...impressionBase, idempotency_key: long(129) }, path: '/body/idempotency_key' },
      { name: 'idempotency_key is a number', body: { ...impressionBase, idempotency_key: 5 }, path: '/body/idempotency_key' },
      { name: 'the body has event_name', body: { ...impressionBase, event_name: 'app_open' }, path: '/body/event_name' },
      { name: 'the body has segments', body: { ...impressionBase, segments: [7] }, path: '/body/segments' },
    ];

    test.each(eligibleCases)('when $name, then _eligible is 400 validation_failed pointing at $path', async ({ body, path }) => {
      const { mapi, delivery } = await oneDelivery();
      expectInvalidAt(await eligible(mapi, body), path);
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual(zero);
    });

    test.each(impressionCases)('when $name, then _impression is 400 validation_failed pointing at $path and nothing is counted', async ({ body, path }) => {
      const { mapi, delivery } = await oneDelivery(showable({ max_total_count: 1 }));
      expectInvalidAt(await impression(mapi, delivery.delivery_id, body), path);
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual(zero);
      // The same key and person, now valid: counted as the first, not answered from the refused one.
      expect(await shown(mapi, delivery.delivery_id, impressionBase)).toEqual({
        delivery_id: delivery.delivery_id,
        delivery_count: 1,
        person_total: 1,
        person_today: 1,
      });
    });

    test('when the leap second is refused, then the error says why', async () => {
      const { mapi, delivery } = await oneDelivery();
      for (const res of [
        await eligible(mapi, { user: m('m-1'), event_name: 'app_open', at: '2016-12-31T23:59:60Z' }),
        await impression(mapi, delivery.delivery_id, { user: m('m-1'), at: '2016-12-31T23:59:60Z' }),
      ]) {
        expectInvalidAt(res, '/body/at');
        expect((res.body as { errors: Array<{ message: string }> }).errors[0]?.message).toMatch(/leap second/);
      }
    });

    test.each([
      { name: 'no body', send: (mapi: string) => app.call('POST', '/v1/delivery/_eligible', asMapi(mapi)), status: 400, code: 'validation_failed' },
      {
        name: 'a body that is not JSON',
        send: (mapi: string) =>
          app.call('POST', '/v1/delivery/_eligible', { headers: { 'X-SERVICE-MAPI-TOKEN': mapi, 'Content-Type': 'application/json' }, body: '{"user": ' }),
        status: 400,
        code: 'invalid_json',
      },
      { name: 'a JSON array', send: (mapi: string) => app.call('POST', '/v1/delivery/_eligible', asMapi(mapi, [])), status: 400, code: 'validation_failed' },
    ])('when _eligible gets $name, then $status $code', async ({ send, status, code }) => {
      const { mapi } = await customerWith();
      expectProblem(await send(mapi), status, code);
    });

    test.each([
      { name: 'no body', body: undefined, raw: false, code: 'validation_failed' },
      { name: 'a body that is not JSON', body: '{"user": ', raw: true, code: 'invalid_json' },
      { name: 'a JSON array', body: [], raw: false, code: 'validation_failed' },
    ])('when _impression gets $name, then 400 $code and nothing is counted', async ({ body, raw, code }) => {
      const { mapi, delivery } = await oneDelivery();
      const res = raw
        ? await app.call('POST', `/v1/delivery/${delivery.delivery_id}/_impression`, {
            headers: { 'X-SERVICE-MAPI-TOKEN': mapi, 'Content-Type': 'application/json' },
            body,
          })
        : await impression(mapi, delivery.delivery_id, body);
      expectProblem(res, 400, code);
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual(zero);
    });

    test.each(['abc', '0', '-1', '1.5'])(
      'when the delivery id in the path is %s, then _impression is 400 pointing at /path/delivery_id',
      async (deliveryId) => {
        const { mapi, delivery } = await oneDelivery();
        expectInvalidAt(await impression(mapi, deliveryId, { user: m('m-1'), at: AT }), '/path/delivery_id');
        expect(counts(await read(mapi, delivery.delivery_id))).toEqual(zero);
      },
    );

    test('when the bounds are met (event_name of 100 characters, 1000 segments, the largest segment id), then _eligible is 200', async () => {
      const { mapi, delivery } = await oneDelivery(showable({ trigger: { event_name: ['e'.repeat(100)], period: [SPAN] }, target: { segmentation_id: 0 } }));
      const segments = [...Array.from({ length: 998 }, (_, i) => i + 1), 2 ** 53 - 1, 0];
      expect(await decided(mapi, { user: { type: 't'.repeat(64), id: 'v'.repeat(1024) }, event_name: 'e'.repeat(100), at: AT, segments })).toEqual({
        shown: [delivery.delivery_id],
        excluded: [],
      });
    });
  });

  // ------------------------------------------------------------------ tokens
  describe('tokens: a mapi token of the customer, in X-SERVICE-MAPI-TOKEN', () => {
    let customer: string;
    let mapi: string;
    let delivery: Delivery;
    let bearer: string;
    let revoked: string;
    beforeAll(async () => {
      ({ customer, mapi, delivery } = await oneDelivery());
      bearer = (await issueToken(app, customer, 'bearer')).token;
      const toRevoke = await issueToken(app, customer, 'mapi');
      expect((await app.call('DELETE', `/v1/${customer}/token/${toRevoke.token_id}`, { token: ADMIN_TOKEN })).status).toBe(204);
      revoked = toRevoke.token;
    });

    const refusals: Array<{ name: string; headers: () => Record<string, string>; status: number; code: string }> = [
      { name: 'no token is sent', headers: () => ({}), status: 401, code: 'authentication_required' },
      {
        name: 'only an Authorization header with the admin token is sent',
        headers: () => ({ Authorization: `Bearer ${ADMIN_TOKEN}` }),
        status: 401,
        code: 'authentication_required',
      },
      {
        name: "only an Authorization header with the customer's mapi token is sent",
        headers: () => ({ Authorization: `Bearer ${mapi}` }),
        status: 401,
        code: 'authentication_required',
      },
      { name: 'the token is unknown', headers: () => ({ 'X-SERVICE-MAPI-TOKEN': unknownMapiToken() }), status: 401, code: 'invalid_token' },
      { name: 'the token is malformed', headers: () => ({ 'X-SERVICE-MAPI-TOKEN': 'not a token!' }), status: 401, code: 'invalid_token' },
      { name: 'the token has been revoked', headers: () => ({ 'X-SERVICE-MAPI-TOKEN': revoked }), status: 401, code: 'invalid_token' },
      { name: "the customer's bearer token is sent as the mapi token", headers: () => ({ 'X-SERVICE-MAPI-TOKEN': bearer }), status: 403, code: 'forbidden' },
      { name: 'the admin token is sent as the mapi token', headers: () => ({ 'X-SERVICE-MAPI-TOKEN': ADMIN_TOKEN }), status: 403, code: 'forbidden' },
    ];
    const endpoints = [
      { name: '_eligible', url: () => '/v1/delivery/_eligible', body: { user: m('m-1'), event_name: 'app_open', at: AT } },
      { name: '_impression', url: () => `/v1/delivery/${delivery.delivery_id}/_impression`, body: { user: m('m-1'), at: AT, idempotency_key: 'k-auth' } },
    ];

    describe.each(refusals)('when $name', ({ headers, status, code }) => {
      test.each(endpoints)(`then $name is ${status} ${code} and nothing is counted`, async (e) => {
        const res = await app.call('POST', e.url(), { headers: headers(), body: e.body });
        expectProblem(res, status, code);
        if (status === 401) expect(res.headers['www-authenticate']).toBe(code === 'invalid_token' ? 'Bearer error="invalid_token"' : 'Bearer');
        expect(counts(await read(mapi, delivery.delivery_id))).toEqual(zero);
      });
    });

    test('when the refused requests are done, then the first counted impression (with the same key) is the first', async () => {
      for (const r of refusals)
        await app.call('POST', `/v1/delivery/${delivery.delivery_id}/_impression`, {
          headers: r.headers(),
          body: { user: m('m-1'), at: AT, idempotency_key: 'k-auth' },
        });
      expect(await shown(mapi, delivery.delivery_id, { user: m('m-1'), at: AT, idempotency_key: 'k-auth' })).toEqual({
        delivery_id: delivery.delivery_id,
        delivery_count: 1,
        person_total: 1,
        person_today: 1,
      });
    });

    test('when a mapi token that answered showing calls is revoked, then its next _eligible and _impression are 401 invalid_token, even those the route refuses first', async () => {
      const used = await issueToken(app, customer, 'mapi');
      expect((await eligible(used.token, { user: m('m-2'), event_name: 'app_open', at: AT })).status).toBe(200);
      expect((await impression(used.token, delivery.delivery_id, { user: m('m-2'), at: AT })).status).toBe(201);
      const before = counts(await read(mapi, delivery.delivery_id));
      expect((await app.call('DELETE', `/v1/${customer}/token/${used.token_id}`, { token: ADMIN_TOKEN })).status).toBe(204);
      const answers = [
        await eligible(used.token, { user: m('m-2'), event_name: 'app_open', at: AT }),
        await eligible(used.token, { user: m('m-2'), event_name: 'nothing_triggers_on_this', at: AT }),
        await eligible(used.token, { user: m('m-2'), event_name: 'app_open', at: 'not a time' }),
        await impression(used.token, delivery.delivery_id, { user: m('m-2'), at: AT }),
        await impression(used.token, delivery.delivery_id + 1000, { user: m('m-2'), at: AT }),
      ];
      for (const res of answers) expectProblem(res, 401, 'invalid_token');
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual(before);
    });
  });

  // ------------------------------------------------------------------ a secure user
  describe('a user of a secure type needs a bearer token of the customer beside the mapi token', () => {
    let customer: string;
    let mapi: string;
    let delivery: Delivery;
    let bearer: string;
    /** Ann holds an e-mail; nobody holds the other one. */
    const linked = email('ann@example.com');
    const unknown = email('nobody@example.com');
    beforeAll(async () => {
      ({ customer, mapi, delivery } = await oneDelivery());
      bearer = (await issueToken(app, customer, 'bearer')).token;
      await createNode(app, customer, { schema: 'member', key: m('ann'), ids: [linked] }, bearer);
    });

    /** The mapi token, and `authorization` as a bearer token when given. */
    const withTokens = (body: unknown, authorization?: string) => {
      const options = asMapi(mapi, body);
      return authorization === undefined ? options : { ...options, headers: { ...options.headers, Authorization: `Bearer ${authorization}` } };
    };
    const eligibleAs = (body: object, authorization?: string) => app.call('POST', '/v1/delivery/_eligible', withTokens(body, authorization));
    const impressionAs = (body: object, authorization?: string) =>
      app.call('POST', `/v1/delivery/${delivery.delivery_id}/_impression`, withTokens(body, authorization));
    const withoutRequestId = (res: Response) => ({ ...(res.body as object), request_id: undefined });

    test('when the mapi token alone is sent, then _eligible (explain) and _impression are 401 authentication_required, the same for a linked and an unknown value, and nothing is counted or stored', async () => {
      // Ann has been shown it once through her member id, so a leak would answer person_total 2 for her e-mail and 1 for the other.
      await shown(mapi, delivery.delivery_id, { user: m('ann'), at: AT });
      const answers: Record<string, unknown[]> = {};
      for (const [name, user] of [
        ['linked', linked],
        ['unknown', unknown],
      ] as const) {
        const asked = await eligibleAs({ user, event_name: 'app_open', at: AT, explain: true });
        const counted = await impressionAs({ user, at: AT, idempotency_key: `k-${name}` });
        for (const res of [asked, counted]) {
          expectProblem(res, 401, 'authentication_required');
          expect(res.headers['www-authenticate']).toBe('Bearer');
          expect(res.text).not.toContain('@example.com');
        }
        answers[name] = [withoutRequestId(asked), withoutRequestId(counted)];
      }
      expect(answers.linked).toEqual(answers.unknown);
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual({ ...zero, delivery_count: 1 });

      // With the bearer token the same key is new (nothing was stored under it), and Ann's count goes on from 1.
      const res = await impressionAs({ user: linked, at: AT, idempotency_key: 'k-linked' }, bearer);
      expect([res.status, res.headers['idempotent-replayed'], res.body]).toEqual([
        201,
        undefined,
        { delivery_id: delivery.delivery_id, delivery_count: 2, person_total: 2, person_today: 2 },
      ]);
      const other = await impressionAs({ user: unknown, at: AT, idempotency_key: 'k-unknown' }, bearer);
      expect([other.status, other.headers['idempotent-replayed'], (other.body as Answer).person_total]).toEqual([201, undefined, 1]);
    });

    test("when the customer's bearer token or the administrator token is sent beside the mapi token, then both endpoints serve a secure user", async () => {
      for (const token of [bearer, ADMIN_TOKEN]) {
        const asked = await eligibleAs({ user: linked, event_name: 'app_open', at: AT, explain: true }, token);
        expect([asked.status, ids((asked.body as Eligibility).deliveries)]).toEqual([200, [delivery.delivery_id]]);
        const before = (await read(mapi, delivery.delivery_id)).condition.delivery_count;
        const counted = await impressionAs({ user: linked, at: AT }, token);
        expect([counted.status, (counted.body as Answer).delivery_count]).toEqual([201, before + 1]);
      }
    });

    test.each([
      {
        name: "another customer's bearer token",
        token: async () => (await issueToken(app, uniqueCustomer('show-other'), 'bearer')).token,
        status: 403,
        code: 'forbidden',
      },
      { name: "the customer's mapi token", token: async () => mapi, status: 403, code: 'forbidden' },
      { name: 'an unknown bearer token', token: async () => `idl_bearer_${randomBytes(32).toString('base64url')}`, status: 401, code: 'invalid_token' },
      { name: 'a malformed token', token: async () => 'not a token!', status: 401, code: 'invalid_token' },
    ])(
      'when $name is sent in Authorization, then both endpoints are $status $code for a secure user, and nothing is counted',
      async ({ token, status, code }) => {
        const authorization = await token();
        const before = counts(await read(mapi, delivery.delivery_id));
        expectProblem(await eligibleAs({ user: linked, event_name: 'app_open', at: AT }, authorization), status, code);
        expectProblem(await impressionAs({ user: linked, at: AT, idempotency_key: 'k-refused' }, authorization), status, code);
        expect(counts(await read(mapi, delivery.delivery_id))).toEqual(before);
      },
    );

    test('when a user of an open type is sent, then no bearer token is needed, and one sent is checked all the same', async () => {
      expect((await eligibleAs({ user: m('ann'), event_name: 'app_open', at: AT })).status).toBe(200);
      expect((await impressionAs({ user: m('ann'), at: AT })).status).toBe(201);
      expectProblem(await impressionAs({ user: m('ann'), at: AT }, 'not a token!'), 401, 'invalid_token');
    });
  });

  // ------------------------------------------------------------------ 404
  describe('404 delivery_not_found', () => {
    test('when the delivery does not exist, then 404 and nothing is counted', async () => {
      const { mapi, delivery } = await oneDelivery();
      expectProblem(await impression(mapi, 987654321, { user: m('m-1'), at: AT }), 404, 'delivery_not_found');
      expectProblem(await impression(mapi, delivery.delivery_id + 1, { user: m('m-1'), at: AT, idempotency_key: 'k' }), 404, 'delivery_not_found');
      expect(counts(await read(mapi, delivery.delivery_id))).toEqual(zero);
    });

    test("when the delivery is another customer's, then 404 and the owner's delivery is not counted", async () => {
      const a = await customerWith();
      await postDelivery(app, a.mapi, showable({}, { name: 'first of A' }));
      const second = await postDelivery(app, a.mapi, showable());
      const b = await oneDelivery();
      // B has delivery 1 only; A's second is a number B does not have.
      expect(second.delivery_id).toBeGreaterThan(b.delivery.delivery_id);
      expectProblem(await impression(b.mapi, second.delivery_id, { user: m('m-1'), at: AT }), 404, 'delivery_not_found');
      expect(counts(await read(a.mapi, second.delivery_id))).toEqual(zero);
      expect(counts(await read(b.mapi, b.delivery.delivery_id))).toEqual(zero);
      // Delivery 1 is each customer's own: B's impression counts B's, never A's.
      await shown(b.mapi, b.delivery.delivery_id, { user: m('m-1'), at: AT });
      expect(counts(await read(a.mapi, b.delivery.delivery_id))).toEqual(zero);
    });
  });
});

// ------------------------------------------------------------------ 422: a person too large to read
describe('showing deliveries to a person past TRAVERSAL_MAX_NODES (2)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ env: { TRAVERSAL_MAX_NODES: '2' } });
  });
  afterAll(() => app.close());

  test('when the person has three nodes, then both endpoints are 422 component_too_large and nothing is counted; a person of two nodes is served', async () => {
    const customer = uniqueCustomer('show-big');
    await putSchema(app, customer, 'member', SCHEMA);
    const mapi = (await issueToken(app, customer, 'mapi')).token;
    const delivery = await postDelivery(app, mapi, showable());
    for (const k of ['m-1', 'm-2', 'm-3']) await createNode(app, customer, { schema: 'member', key: m(k), ids: [device('d-shared')] });
    await createNode(app, customer, { schema: 'member', key: m('m-4'), ids: [device('d-4')] });
    await createNode(app, customer, { schema: 'member', key: m('m-5'), ids: [device('d-4')] });

    for (const user of [device('d-shared'), m('m-1')]) {
      expectProblem(await app.call('POST', '/v1/delivery/_eligible', asMapi(mapi, { user, event_name: 'app_open', at: AT })), 422, 'component_too_large');
      expectProblem(
        await app.call('POST', `/v1/delivery/${delivery.delivery_id}/_impression`, asMapi(mapi, { user, at: AT, idempotency_key: 'k-big' })),
        422,
        'component_too_large',
      );
    }
    const read = await app.call('GET', `/v1/delivery/${delivery.delivery_id}`, asMapi(mapi));
    expect(counts(read.body as Delivery)).toEqual(zero);

    const ok = await app.call('POST', `/v1/delivery/${delivery.delivery_id}/_impression`, asMapi(mapi, { user: m('m-4'), at: AT, idempotency_key: 'k-big' }));
    expect([ok.status, ok.body]).toEqual([201, { delivery_id: delivery.delivery_id, delivery_count: 1, person_total: 1, person_today: 1 }]);
    const el = await app.call('POST', '/v1/delivery/_eligible', asMapi(mapi, { user: device('d-4'), event_name: 'app_open', at: AT }));
    expect(el.status).toBe(200);
    // Once m-3 leaves d-shared, the person of d-shared has two nodes and is served.
    expect((await app.call('POST', `/v1/${customer}/node/_delete`, { body: { schema: 'member', key: m('m-3'), where: device('d-shared') } })).status).toBe(204);
    const after = await app.call('POST', `/v1/delivery/${delivery.delivery_id}/_impression`, asMapi(mapi, { user: device('d-shared'), at: AT }));
    expect([after.status, after.body]).toEqual([201, { delivery_id: delivery.delivery_id, delivery_count: 2, person_total: 1, person_today: 1 }]);
  });
});
