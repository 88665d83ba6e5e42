// The Bolt round trips and statements each hot call makes on Neo4j, through the real app, token checks and schema
// lookups included: the table docs/neo4j-performance.md gives. A change that adds a statement or a round trip to one of
// these calls fails here, and whoever makes it updates the table (and says why) on purpose.
import { counted, type Counted } from '../helpers/bolt-round-trips';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { hashToken } from '../../src/domain/tokens';
import { SHARED_READS_AT_ONCE } from '../../src/store/neo4j/neo4j-store';
import { checkedImpression, checkedPerson } from '../helpers/checked-showing';

const C = `rt-${process.pid}`;
const admin = { token: ADMIN_TOKEN };
const node = (memberId: string, ids: Array<{ type: string; id: string }>) => ({ schema: 'member', key: { type: 'member_id', id: memberId }, ids });
const delivery = {
  name: 'Winter sale',
  priority: 2,
  condition: {
    trigger: { event_name: ['app_open'], period: [{ start: '2026-12-01T00:00:00+09:00', end: '2027-01-01T00:00:00+09:00' }] },
    target: { segmentation_id: 3 },
    max_delivery_count: 1_000_000,
    max_total_count: 1_000_000,
    max_total_count_per_day: 1_000_000,
    category: 'sale',
    is_active: true,
  },
  message: [{ template_id: 7, title: 'Winter sale', body: '20% off today', image_url: 'https://cdn.example.com/w.png', buttons: [] }],
};

describe('round trips to Neo4j per call', () => {
  let app: TestApp;
  let mapi: Record<string, string>;
  let bearer: string;
  let deliveryId: number;
  let seq = 0;
  let upserts = 0;

  const ok = async (method: 'POST' | 'PUT', url: string, options: Parameters<TestApp['call']>[2]) => {
    const res = await app.call(method, url, options);
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${res.text}`);
    return res;
  };

  beforeAll(async () => {
    app = await startApp();
    await ok('PUT', `/v1/${C}/schema/member`, { ...admin, body: { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'email', secure: true }] } });
    bearer = (await ok('POST', `/v1/${C}/token`, { ...admin, body: { kind: 'bearer', label: 'backend' } })).body.token;
    mapi = { 'x-service-mapi-token': (await ok('POST', `/v1/${C}/token`, { ...admin, body: { kind: 'mapi', label: 'app' } })).body.token };
    await ok('POST', `/v1/${C}/node/_create`, { body: node('m-1', [{ type: 'device', id: 'phone-1' }]) });
    await ok('POST', `/v1/${C}/node/_create`, {
      body: node('m-2', [
        { type: 'device', id: 'phone-1' },
        { type: 'device', id: 'ups-0' },
      ]),
    });
    for (let i = 1; i <= 4; i++) await ok('POST', `/v1/${C}/node/_create`, { body: node(`bi-${i}`, []) });
    deliveryId = (await ok('POST', '/v1/delivery', { headers: mapi, body: delivery })).body.delivery_id;
    // Six nodes in a line, each sharing 5 devices with the next.
    const hop = (i: number) => ['a', 'b', 'c', 'd', 'e'].map((v) => ({ type: 'device', id: `tie-${i}${v}` }));
    for (let i = 0; i < 6; i++) await ok('POST', `/v1/${C}/node/_create`, { body: node(`tie-${i}`, [...(i > 0 ? hop(i - 1) : []), ...(i < 5 ? hop(i) : [])]) });
  });
  afterAll(() => app?.close());

  /**
   * A call (`send`, after `prepare` when it needs something made first), made once to warm the pool and the plans,
   * then counted.
   */
  interface Call {
    prepare?: () => Promise<unknown>;
    send: () => Promise<unknown>;
  }
  async function count(call: Call): Promise<Counted> {
    await call.prepare?.();
    await call.send();
    await call.prepare?.();
    return counted(call.send);
  }

  const search = (step: 'ONE' | 'ALL', from: object, token?: string) => () =>
    ok('POST', `/v1/${C}/_search`, { ...(token ? { token } : {}), body: { match: { from, step }, limit: 100 } });
  const byKey = { schema: 'member', key: { type: 'member_id', id: 'm-1' } };
  const byWhere = { where: { type: 'device', id: 'phone-1' } };
  const tie = (i: number) => ({ schema: 'member', key: { type: 'member_id', id: `tie-${i}` } });

  // Each call: its statements in order (auto: an auto-commit query, one round trip; the others run in one
  // transaction whose BEGIN goes out with its first statement), its transactions and its round trips.
  const cases: Array<[string, Call, Counted]> = [
    ['search ONE by key, no token', { send: search('ONE', byKey) }, { statements: ['auto:search.one'], transactions: 0, roundTrips: 1 }],
    ['search ONE by ID, no token', { send: search('ONE', byWhere) }, { statements: ['auto:search.one'], transactions: 0, roundTrips: 1 }],
    [
      'search ALL by key, bearer token',
      { send: () => search('ALL', byKey, bearer)() },
      { statements: ['auto:token.find-active', 'auto:search.all'], transactions: 0, roundTrips: 2 },
    ],
    [
      '_graph by key, no token',
      { send: () => ok('POST', `/v1/${C}/_graph`, { body: { match: { from: byKey }, max_nodes: 10 } }) },
      { statements: ['auto:graph.all'], transactions: 0, roundTrips: 1 },
    ],
    [
      '_why by keys, no token',
      { send: () => ok('POST', `/v1/${C}/_why`, { body: { from: byKey, to: { schema: 'member', key: { type: 'member_id', id: 'm-2' } } } }) },
      { statements: ['auto:why.shortest'], transactions: 0, roundTrips: 1 },
    ],
    [
      // 5^5 = 3,125 equal shortest chains, more than why.shortest reads: the exact search, a statement a level.
      '_why by keys, more than 1,000 tied chains',
      {
        send: () => ok('POST', `/v1/${C}/_why`, { body: { from: tie(0), to: tie(5) } }),
      },
      {
        statements: [
          'auto:why.shortest',
          // Both ends' IDs, then a level of the smaller side at a time: 10 levels for 5 hops.
          'auto:why.ids-of-nodes',
          ...Array.from({ length: 4 }, () => ['auto:why.ids-of-nodes', 'auto:why.nodes-of-ids']).flat(),
          'auto:why.ids-of-nodes',
          'auto:why.labels',
        ],
        transactions: 0,
        roundTrips: 12,
      },
    ],
    [
      'create',
      { send: () => ok('POST', `/v1/${C}/node/_create`, { body: node(`n-${++seq}`, [{ type: 'device', id: `d-${seq}` }]) }) },
      // The customer's policy is the one this process kept from the warming call: the guard checks it (no read).
      { statements: ['schema.guard', 'node.create'], transactions: 1, roundTrips: 2 },
    ],
    [
      'insert',
      { send: () => ok('POST', `/v1/${C}/node/_insert`, { body: node('m-1', [{ type: 'device', id: `i-${++seq}` }]) }) },
      {
        statements: ['schema.guard', 'node.lock', 'node.held-among', 'node.link-ids', 'history.append'],
        transactions: 1,
        roundTrips: 3,
      },
    ],
    [
      'upsert (replace an ID)',
      {
        send: () => {
          const where = { type: 'device', id: `ups-${upserts}` };
          const set = { type: 'device', id: `ups-${++upserts}` };
          return ok('POST', `/v1/${C}/node/_upsert`, { body: { schema: 'member', key: { type: 'member_id', id: 'm-2' }, where, set } });
        },
      },
      {
        statements: ['schema.guard', 'node.lock', 'node.held-among', 'node.unlink-id', 'node.link-ids', 'history.append'],
        transactions: 1,
        roundTrips: 3,
      },
    ],
    [
      // The kept policy, read again in the transaction beside the lock: no read before it.
      'delete a node',
      {
        prepare: () => ok('POST', `/v1/${C}/node/_create`, { body: node(`del-${++seq}`, [{ type: 'device', id: `dd-${seq}` }]) }),
        send: () => ok('POST', `/v1/${C}/node/_delete`, { body: { schema: 'member', key: { type: 'member_id', id: `del-${seq}` } } }),
      },
      { statements: ['customer.policy', 'node.lock', 'node.ids', 'node.delete', 'history.append'], transactions: 1, roundTrips: 3 },
    ],
    [
      '_eligible, mapi token',
      {
        send: () =>
          ok('POST', '/v1/delivery/_eligible', {
            headers: mapi,
            body: { user: { type: 'device', id: 'phone-1' }, event_name: 'app_open', platform: 'ios', at: '2026-12-01T09:00:00+09:00', segments: [3] },
          }),
      },
      {
        // The mapi token, the customer's policy and catalogue are the ones this process kept from the warming call:
        // person.counts checks all three.
        statements: ['auto:person.counts'],
        transactions: 0,
        roundTrips: 1,
      },
    ],
    [
      '_impression, mapi token',
      {
        send: () =>
          ok('POST', `/v1/delivery/${deliveryId}/_impression`, {
            headers: mapi,
            body: { user: { type: 'device', id: 'phone-1' }, platform: 'ios', at: '2026-12-01T21:00:00+09:00' },
          }),
      },
      {
        // The mapi token and the policy kept too: the one statement, its own transaction, checks them.
        statements: ['auto:impression.count'],
        transactions: 0,
        roundTrips: 1,
      },
    ],
    [
      '_bulk of 4 creates',
      {
        send: () => {
          const lines = [1, 2, 3, 4].map(() => JSON.stringify({ op: 'create', body: node(`b-${++seq}`, [{ type: 'device', id: `bd-${seq}` }]) }));
          return ok('POST', `/v1/${C}/node/_bulk`, { headers: { 'content-type': 'application/x-ndjson' }, body: `${lines.join('\n')}\n` });
        },
      },
      { statements: ['auto:customer.policy', 'schema.guard', 'node.create-many', 'history.append'], transactions: 1, roundTrips: 3 },
    ],
    [
      // As concurrent single inserts go together (write gathering): the guard, the locks, the read of what the nodes
      // hold, the links and the history in one round trip, then the COMMIT.
      '_bulk of 4 inserts',
      {
        send: () => {
          const lines = [1, 2, 3, 4].map((i) => JSON.stringify({ op: 'insert', body: node(`bi-${i}`, [{ type: 'device', id: `bi-${++seq}` }]) }));
          return ok('POST', `/v1/${C}/node/_bulk`, { headers: { 'content-type': 'application/x-ndjson' }, body: `${lines.join('\n')}\n` });
        },
      },
      {
        statements: ['auto:customer.policy', 'schema.guard', 'node.lock-many', 'node.held-many', 'node.link-many', 'history.append'],
        transactions: 1,
        roundTrips: 3,
      },
    ],
    [
      // The bulk request's admission reads the policy; the lines were checked against the one kept for the schema, read
      // again in the transaction with the locks and the read of what the nodes hold (one round trip), then the deletes
      // and the history in the next.
      '_bulk of 4 deletes',
      {
        prepare: async () => {
          seq += 1;
          for (let i = 1; i <= 4; i++)
            await ok('POST', `/v1/${C}/node/_create`, { body: node(`bdel-${seq}-${i}`, [{ type: 'device', id: `bdel-${seq}-${i}` }]) });
        },
        send: () => {
          const lines = [1, 2, 3, 4].map((i) =>
            JSON.stringify({ op: 'delete', body: { schema: 'member', key: { type: 'member_id', id: `bdel-${seq}-${i}` } } }),
          );
          return ok('POST', `/v1/${C}/node/_bulk`, { headers: { 'content-type': 'application/x-ndjson' }, body: `${lines.join('\n')}\n` });
        },
      },
      {
        statements: ['auto:customer.policy', 'customer.policy', 'node.lock-many', 'node.ids-many', 'node.delete-many', 'history.append'],
        transactions: 1,
        roundTrips: 4,
      },
    ],
  ];

  // Separations: a fresh pair each time (admin token: no token lookup).
  const pairOf = (x: string, y: string) => ({
    nodes: [
      { schema: 'member', key: { type: 'member_id', id: x } },
      { schema: 'member', key: { type: 'member_id', id: y } },
    ],
  });
  cases.push(
    [
      '_separate two nodes sharing nothing',
      {
        prepare: async () => {
          seq += 1;
          await ok('POST', `/v1/${C}/node/_create`, { body: node(`sa-${seq}`, []) });
          await ok('POST', `/v1/${C}/node/_create`, { body: node(`sb-${seq}`, []) });
        },
        send: () => ok('POST', `/v1/${C}/_separate`, { ...admin, body: { ...pairOf(`sa-${seq}`, `sb-${seq}`), remove_shared_from: 'none' } }),
      },
      {
        statements: ['node.lock', 'node.find', 'node.lock', 'node.find', 'separation.shared', 'separation.put', 'history.append'],
        transactions: 1,
        roundTrips: 4,
      },
    ],
    // However many IDs the two share: one statement removes them all, sent with the ban and the history.
    ...[1, 1_000].map((sharing): [string, Call, Counted] => [
      `_separate two nodes sharing ${sharing === 1 ? 'one ID' : `${sharing.toLocaleString('en')} IDs`}`,
      {
        prepare: async () => {
          seq += 1;
          const ids = Array.from({ length: sharing }, (_, i) => ({ type: 'device', id: `ss-${seq}-${i}` }));
          await ok('POST', `/v1/${C}/node/_create`, { body: node(`sc-${seq}`, ids) });
          await ok('POST', `/v1/${C}/node/_create`, { body: node(`sd-${seq}`, ids) });
        },
        send: async () => {
          const res = await ok('POST', `/v1/${C}/_separate`, { ...admin, body: { ...pairOf(`sc-${seq}`, `sd-${seq}`), remove_shared_from: 'B' } });
          expect(res.body).toEqual({ ids_removed: sharing });
        },
      },
      {
        statements: ['node.lock', 'node.find', 'node.lock', 'node.find', 'separation.shared', 'separation.unlink-shared', 'separation.put', 'history.append'],
        transactions: 1,
        roundTrips: 4,
      },
    ]),
    ['_separate list', { send: () => app.call('GET', `/v1/${C}/_separate`, admin) }, { statements: ['auto:separation.list'], transactions: 0, roundTrips: 1 }],
    [
      'insert into a separated node',
      {
        prepare: async () => {
          seq += 1;
          await ok('POST', `/v1/${C}/node/_create`, { body: node(`si-${seq}`, []) });
          await ok('POST', `/v1/${C}/node/_create`, { body: node(`sj-${seq}`, []) });
          await ok('POST', `/v1/${C}/_separate`, { ...admin, body: { ...pairOf(`si-${seq}`, `sj-${seq}`), remove_shared_from: 'none' } });
        },
        send: () => ok('POST', `/v1/${C}/node/_insert`, { body: node(`si-${seq}`, [{ type: 'device', id: `si-d-${++upserts}` }]) }),
      },
      {
        statements: ['schema.guard', 'node.lock', 'node.held-among', 'separation.check', 'node.link-ids', 'history.append'],
        transactions: 1,
        roundTrips: 4,
      },
    ],
    [
      '_separate lift',
      {
        prepare: async () => {
          seq += 1;
          await ok('POST', `/v1/${C}/node/_create`, { body: node(`sl-${seq}`, []) });
          await ok('POST', `/v1/${C}/node/_create`, { body: node(`sm-${seq}`, []) });
          await ok('POST', `/v1/${C}/_separate`, { ...admin, body: { ...pairOf(`sl-${seq}`, `sm-${seq}`), remove_shared_from: 'none' } });
        },
        send: () => app.call('DELETE', `/v1/${C}/_separate`, { ...admin, body: pairOf(`sl-${seq}`, `sm-${seq}`) }),
      },
      { statements: ['node.lock', 'node.find', 'node.lock', 'node.find', 'separation.delete', 'history.append'], transactions: 1, roundTrips: 3 },
    ],
  );

  test.each(cases)('%s', async (_name, call, expected) => {
    expect(await count(call)).toEqual(expected);
  });

  describe('when more calls read at once than SHARED_READS_AT_ONCE', () => {
    const calls = 10;
    // The first SHARED_READS_AT_ONCE go alone, each with its statement; the others wait for one of them, and then go
    // together in one statement of the `-many` kind. Each session writes when it has a connection, so a lone read
    // that waited for one may be written after the shared one: the statements are compared in name order.
    const inOrder = (statements: string[]) => [...statements].sort();
    const shared = [...Array<string>(SHARED_READS_AT_ONCE).fill('auto:customer.policy'), 'auto:customer.policy-many'];

    test('then policy reads of different customers share one statement, each with its own answer', async () => {
      const customers = Array.from({ length: calls }, (_, i) => `${C}-p${i}`);
      await ok('PUT', `/v1/${customers[7]}/settings`, { ...admin, body: { timezone: 'Asia/Tokyo' } });
      let zones: string[] = [];
      const { statements } = await counted(async () => {
        zones = await Promise.all(customers.map(async (c) => (await app.store.customerPolicy(c)).settings.timezone));
      });
      expect(inOrder(statements)).toEqual(shared);
      expect(zones).toEqual(customers.map((_, i) => (i === 7 ? 'Asia/Tokyo' : 'UTC')));
    });

    test('then eligibility of one customer weighs the catalogue kept by the calls before, and reads their people in one statement', async () => {
      const users = ['phone-1', 'ups-0', ...Array.from({ length: calls - 2 }, (_, i) => `nobody-${i}`)];
      const eligibility = (id: string) =>
        app.store.eligibility(checkedPerson({ customerId: C, user: { type: 'device', id }, unlinkedTypes: [], maxNodes: 1_000, maxIds: 1_000 }, '2026-12-01'));
      const alone: unknown[] = [];
      for (const user of users) alone.push(await eligibility(user));
      let together: unknown[] = [];
      const { statements } = await counted(async () => {
        together = await Promise.all(users.map(eligibility));
      });
      expect(together).toEqual(alone);
      // The calls before kept the customer's catalogue, and no delivery changed since: person.counts checks that.
      expect(statements.filter((s) => s.startsWith('auto:delivery.catalogue'))).toEqual([]);
      const people = statements.filter((s) => s.startsWith('auto:person.counts'));
      expect(people).toContain('auto:person.counts-many');
      expect(people.length).toBeLessThan(calls);
    });

    test('then catalogues of different customers share one statement, each with its own deliveries', async () => {
      const customers = Array.from({ length: calls }, (_, i) => `${C}-d${i}`);
      // Customer i has i deliveries, named after it.
      for (const [i, customer] of customers.entries()) {
        const token = { 'x-service-mapi-token': (await ok('POST', `/v1/${customer}/token`, { ...admin, body: { kind: 'mapi', label: 'app' } })).body.token };
        for (let n = 0; n < i; n += 1) await ok('POST', '/v1/delivery', { headers: token, body: { ...delivery, name: `${customer} ${n}` } });
      }
      const eligibility = (customerId: string) =>
        app.store.eligibility(
          checkedPerson({ customerId, user: { type: 'device', id: 'nobody' }, unlinkedTypes: [], maxNodes: 1_000, maxIds: 1_000 }, '2026-12-01'),
        );
      let names: string[][] = [];
      const { statements } = await counted(async () => {
        names = await Promise.all(customers.map(async (c) => (await eligibility(c)).deliveries.map((d) => d.name)));
      });
      // At least SHARED_READS_AT_ONCE go alone, and those behind them together. How many go alone depends on when each
      // call reaches the batcher (a call arriving once a slot is free goes alone): on a busy machine, three did.
      const catalogues = inOrder(statements.filter((s) => s.startsWith('auto:delivery.catalogue')));
      expect(catalogues.slice(0, SHARED_READS_AT_ONCE)).toEqual(Array<string>(SHARED_READS_AT_ONCE).fill('auto:delivery.catalogue'));
      expect(catalogues).toContain('auto:delivery.catalogue-many');
      expect(catalogues.length).toBeLessThan(calls);
      expect(names).toEqual(customers.map((customer, i) => Array.from({ length: i }, (_, n) => `${customer} ${n}`)));
    });

    test('then impressions of other deliveries share one statement, each counted or refused on its own; a second of a delivery waits for the next', async () => {
      const token = { 'x-service-mapi-token': (await ok('POST', `/v1/${C}-i/token`, { ...admin, body: { kind: 'mapi', label: 'app' } })).body.token };
      const ids: number[] = [];
      for (let n = 0; n < 5; n += 1)
        ids.push((await ok('POST', '/v1/delivery', { headers: token, body: { ...delivery, name: `gathered ${n}` } })).body.delivery_id);
      const [d0, d1, d2, d3, d4] = ids as [number, number, number, number, number];
      const impression = (deliveryId: number, user: string, idempotencyKey?: string) =>
        app.store.recordImpression(
          checkedImpression({
            person: { customerId: `${C}-i`, user: { type: 'device', id: user }, unlinkedTypes: [], maxNodes: 1_000, maxIds: 1_000 },
            deliveryId,
            platform: 'ios',
            day: '2026-12-01',
            ...(idempotencyKey ? { idempotencyKey } : {}),
            receivedAt: new Date().toISOString(),
          }),
        );
      await impression(d4, 'keyed', 'k1');
      const asked: Array<[number, string, string?]> = [
        [d0, 'g0'],
        [d1, 'g1'],
        [d2, 'g2'],
        [d3, 'g3'],
        [d0, 'g4'],
        [d1, 'g5'],
        [d2, 'g6'],
        [d3, 'g7'],
        [999_999, 'g8'],
        [d4, 'keyed', 'k1'],
      ];
      let settled: Array<PromiseSettledResult<Awaited<ReturnType<typeof impression>>>> = [];
      const { statements } = await counted(async () => {
        settled = await Promise.allSettled(asked.map(([deliveryId, user, key]) => impression(deliveryId, user, key)));
      });
      // Two alone; then the 6 that wait of distinct deliveries together, and the 2 seconds of d2 and d3 after them.
      expect(statements).toEqual(Array<string>(SHARED_READS_AT_ONCE + 2).fill('auto:impression.count'));
      const answers = settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as { code: string }).code));
      expect(answers[8]).toBe('delivery_not_found');
      expect(answers[9]).toEqual({ answer: { deliveryId: d4, deliveryCount: 1, personTotal: 1, personToday: 1 }, replayed: true });
      for (const deliveryId of [d0, d1, d2, d3]) {
        const ofDelivery = answers.flatMap((a) => (typeof a === 'object' && a.answer.deliveryId === deliveryId ? [a] : []));
        expect(ofDelivery.map((a) => [a.answer.deliveryCount, a.answer.personTotal, a.replayed]).sort()).toEqual([
          [1, 1, false],
          [2, 1, false],
        ]);
        expect((await app.store.getDelivery(`${C}-i`, deliveryId))?.condition.deliveryCount).toBe(2);
      }
    });

    test('then token lookups share one statement, and one with the same hash reads it once', async () => {
      const hashes = [
        hashToken(mapi['x-service-mapi-token'] as string),
        hashToken(bearer),
        ...Array.from({ length: calls - 2 }, (_, i) => hashToken(`none-${i}`)),
      ];
      // The gathered ones: the bearer's hash twice, the mapi one, and unknown ones.
      const asked = [...hashes, hashes[1] as string, hashes[0] as string];
      let found: Array<string | undefined> = [];
      const { statements } = await counted(async () => {
        found = (await Promise.all(asked.map((h) => app.store.findActiveToken(h)))).map((t) => t?.kind);
      });
      expect(inOrder(statements)).toEqual([...Array<string>(SHARED_READS_AT_ONCE).fill('auto:token.find-active'), 'auto:token.find-active-many']);
      expect(found).toEqual(['mapi', 'bearer', ...Array<undefined>(calls - 2).fill(undefined), 'bearer', 'mapi']);
    });
  });
});
