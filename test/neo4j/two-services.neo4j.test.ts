// Two service processes (`node dist/main.js`) on one Neo4j, as several instances behind a load balancer run: the
// contract holds between them. A create race spread over both has one winner; a schema change or a token
// revocation made through one holds on the other's very next request; a write answered by one is seen by a search
// on the other at once. What a process keeps between requests (a customer's policy, for its node writes) is checked
// in each write's own transaction, so a change made through the other process holds at the next write all the same.
import { ADMIN_TOKEN, call, serverFaults, type Service, serviceEnv, startService, stopService, untilReady } from '../helpers/neo4j-services';
import { buildCondition, buildDelivery } from '../helpers/deliveries';
import { neo4jConnectionFromEnv } from '../helpers/store';

interface SearchAnswer {
  results: Array<{ type: string; id: string }>;
  total: number;
}

const byKey = (schema: string, memberId: string, extra: Record<string, unknown> = {}) => ({
  match: { from: { schema, key: { type: 'member_id', id: memberId } }, step: 'ONE', ...extra },
});

describe('two service processes on one Neo4j', () => {
  let one: Service;
  let two: Service;

  beforeAll(async () => {
    const env = serviceEnv(neo4jConnectionFromEnv());
    [one, two] = await Promise.all([startService(env), startService(env)]);
    await Promise.all([untilReady(one, 30_000), untilReady(two, 30_000)]);
  });

  afterEach(() => {
    // A 5xx other than 503 is a fault of ours, whatever the test checked.
    expect([...serverFaults(one), ...serverFaults(two)]).toEqual([]);
  });

  afterAll(async () => {
    const stopped = await Promise.all([one, two].filter(Boolean).map(stopService));
    expect(stopped).toEqual(stopped.map(() => ({ code: 0, signal: null })));
  });

  test('when 25 creates of one key go to each process at once, then exactly one is 201, the other 49 are 409 node_exists, and the node holds exactly what the winner sent', async () => {
    const schema = { id_types: [{ type: 'member_id' }, { type: 'device' }] };
    expect((await call(one.base, 'PUT', '/v1/race/schema/member', { token: ADMIN_TOKEN, body: schema })).status).toBe(201);

    const attempts = Array.from({ length: 50 }, (_, i) => ({
      service: i % 2 === 0 ? one : two,
      body: {
        schema: 'member',
        key: { type: 'member_id', id: 'contested' },
        ids: [
          { type: 'device', id: `phone-${i}` },
          { type: 'device', id: `tablet-${i}` },
        ],
      },
    }));
    const answers = await Promise.all(attempts.map((a) => call(a.service.base, 'POST', '/v1/race/node/_create', { body: a.body })));

    const winners = answers.flatMap((answer, i) => (answer.status === 201 ? [i] : []));
    expect(winners).toHaveLength(1);
    const losers = answers.filter((answer) => answer.status !== 201);
    expect(losers.map((l) => [l.status, (l.json as { code?: string }).code])).toEqual(losers.map(() => [409, 'node_exists']));

    const winner = winners[0] as number;
    const whole = {
      results: [
        { type: 'device', id: `phone-${winner}` },
        { type: 'device', id: `tablet-${winner}` },
        { type: 'member_id', id: 'contested' },
      ],
      total: 3,
    };
    for (const service of [one, two]) {
      expect(await call(service.base, 'POST', '/v1/race/_search', { body: byKey('member', 'contested') })).toMatchObject({ status: 200, json: whole });
    }
  });

  test('when one process revokes a bearer token, then the very next request with it on the other is 401 invalid_token', async () => {
    const schema = { id_types: [{ type: 'member_id' }, { type: 'email', secure: true }] };
    expect((await call(one.base, 'PUT', '/v1/tokens/schema/member', { token: ADMIN_TOKEN, body: schema })).status).toBe(201);
    // A search that starts from a secure type needs a token.
    const bySecureId = { match: { from: { where: { type: 'email', id: 'ann@example.com' } } } };

    for (const [issuer, revoker, user] of [
      [one, one, two],
      [two, one, two],
      [one, two, one],
    ] as const) {
      const issued = await call(issuer.base, 'POST', '/v1/tokens/token', { token: ADMIN_TOKEN, body: { kind: 'bearer' } });
      expect(issued.status).toBe(201);
      const { token, token_id: tokenId } = issued.json as { token: string; token_id: string };
      expect((await call(user.base, 'POST', '/v1/tokens/_search', { token, body: bySecureId })).status).toBe(200);

      expect((await call(revoker.base, 'DELETE', `/v1/tokens/token/${tokenId}`, { token: ADMIN_TOKEN })).status).toBe(204);
      const refused = await call(user.base, 'POST', '/v1/tokens/_search', { token, body: bySecureId });
      expect(refused).toMatchObject({ status: 401, json: { code: 'invalid_token' } });
    }
  });

  test('when one process revokes a mapi token, then the other, which kept it, answers the very next _eligible and _impression with it 401 invalid_token, before any other refusal', async () => {
    expect((await call(one.base, 'PUT', '/v1/keptmapi/schema/member', { token: ADMIN_TOKEN, body: { id_types: [{ type: 'member_id' }] } })).status).toBe(201);
    const issued = await call(one.base, 'POST', '/v1/keptmapi/token', { token: ADMIN_TOKEN, body: { kind: 'mapi' } });
    const { token, token_id: tokenId } = issued.json as { token: string; token_id: string };
    const mapi = { 'x-service-mapi-token': token };
    const created = await call(one.base, 'POST', '/v1/delivery', { headers: mapi, body: buildDelivery() });
    expect(created.status).toBe(201);
    const deliveryId = (created.json as { delivery_id: number }).delivery_id;
    const user = { type: 'member_id', id: 'm-1' };
    const eligible = (body: object) => call(two.base, 'POST', '/v1/delivery/_eligible', { headers: mapi, body });
    const shown = (id: number) => call(two.base, 'POST', `/v1/delivery/${id}/_impression`, { headers: mapi, body: { user, platform: 'ios' } });

    // The other process reads the token once, and then keeps it.
    expect((await eligible({ user, event_name: 'app_open' })).status).toBe(200);
    expect((await eligible({ user, event_name: 'app_open' })).status).toBe(200);
    expect((await call(one.base, 'DELETE', `/v1/keptmapi/token/${tokenId}`, { token: ADMIN_TOKEN })).status).toBe(204);

    const revoked = { status: 401, json: { code: 'invalid_token' } };
    expect(await eligible({ user, event_name: 'app_open' })).toMatchObject(revoked);
    // No delivery left to weigh, so the person is not read: still refused.
    expect(await eligible({ user, event_name: 'nothing_triggers_on_this' })).toMatchObject(revoked);
    expect(await shown(deliveryId)).toMatchObject(revoked);
    // What would be 400 or 404 with an active token is 401 first, as where the token is read.
    expect(await eligible({ user, event_name: 'app_open', at: 'not a time' })).toMatchObject(revoked);
    expect(await shown(deliveryId + 1000)).toMatchObject(revoked);
    // Nothing was counted.
    const fresh = await call(one.base, 'POST', '/v1/keptmapi/token', { token: ADMIN_TOKEN, body: { kind: 'mapi' } });
    const delivery = await call(two.base, 'GET', `/v1/delivery/${deliveryId}`, {
      headers: { 'x-service-mapi-token': (fresh.json as { token: string }).token },
    });
    expect(delivery).toMatchObject({ status: 200, json: { condition: { delivery_count: 0 } } });
  });

  test('when one process drops a type from a schema, then the other refuses that type on its next request', async () => {
    const declared = { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'legacy' }] };
    expect((await call(one.base, 'PUT', '/v1/drop/schema/member', { token: ADMIN_TOKEN, body: declared })).status).toBe(201);
    expect((await call(two.base, 'POST', '/v1/drop/node/_create', { body: { schema: 'member', key: { type: 'member_id', id: 'm-1' } } })).status).toBe(201);
    const removeLegacy = { schema: 'member', key: { type: 'member_id', id: 'm-1' }, where: { type: 'legacy', id: 'old-1' } };
    // Accepted while declared (nothing held, nothing changes).
    expect((await call(two.base, 'POST', '/v1/drop/node/_delete', { body: removeLegacy })).status).toBe(204);

    const dropped = { id_types: [{ type: 'member_id' }, { type: 'device' }] };
    expect((await call(one.base, 'PUT', '/v1/drop/schema/member', { token: ADMIN_TOKEN, body: dropped })).status).toBe(200);
    expect(await call(two.base, 'POST', '/v1/drop/node/_delete', { body: removeLegacy })).toMatchObject({
      status: 400,
      json: { code: 'id_type_not_in_schema' },
    });
    const insertLegacy = { schema: 'member', key: { type: 'member_id', id: 'm-1' }, ids: [{ type: 'legacy', id: 'old-2' }] };
    expect(await call(two.base, 'POST', '/v1/drop/node/_insert', { body: insertLegacy })).toMatchObject({
      status: 400,
      json: { code: 'id_type_not_in_schema' },
    });
    expect(await call(two.base, 'GET', '/v1/drop/schema/member', { token: ADMIN_TOKEN })).toMatchObject({
      status: 200,
      json: { id_types: dropped.id_types.map((t) => ({ ...t, secure: false })) },
    });
  });

  test('when one process turns a type secure, then the other hides it from anonymous searches and wants a token to start from it, on its next request', async () => {
    const open = { id_types: [{ type: 'member_id' }, { type: 'email' }] };
    expect((await call(one.base, 'PUT', '/v1/secure/schema/member', { token: ADMIN_TOKEN, body: open })).status).toBe(201);
    const node = { schema: 'member', key: { type: 'member_id', id: 'm-1' }, ids: [{ type: 'email', id: 'ann@example.com' }] };
    expect((await call(two.base, 'POST', '/v1/secure/node/_create', { body: node })).status).toBe(201);
    const fromEmail = { match: { from: { where: { type: 'email', id: 'ann@example.com' } } } };
    expect((await call(two.base, 'POST', '/v1/secure/_search', { body: byKey('member', 'm-1') })).json).toEqual({
      results: [
        { type: 'email', id: 'ann@example.com' },
        { type: 'member_id', id: 'm-1' },
      ],
      total: 2,
    });
    expect((await call(two.base, 'POST', '/v1/secure/_search', { body: fromEmail })).status).toBe(200);

    const secured = { id_types: [{ type: 'member_id' }, { type: 'email', secure: true }] };
    expect((await call(one.base, 'PUT', '/v1/secure/schema/member', { token: ADMIN_TOKEN, body: secured })).status).toBe(200);
    expect((await call(two.base, 'POST', '/v1/secure/_search', { body: byKey('member', 'm-1') })).json).toEqual({
      results: [{ type: 'member_id', id: 'm-1' }],
      total: 1,
    });
    expect(await call(two.base, 'POST', '/v1/secure/_search', { body: fromEmail })).toMatchObject({ status: 401, json: { code: 'authentication_required' } });
    expect((await call(two.base, 'POST', '/v1/secure/_search', { token: ADMIN_TOKEN, body: byKey('member', 'm-1') })).json).toMatchObject({ total: 2 });
  });

  test("when one process changes the blocklist, the settings or the schema, then the other's next write answers the change, though it kept the policy its earlier writes were checked against", async () => {
    const schema = { id_types: [{ type: 'member_id' }, { type: 'device' }] };
    expect((await call(one.base, 'PUT', '/v1/kept/schema/member', { token: ADMIN_TOKEN, body: schema })).status).toBe(201);
    const insert = (device: string, token?: string) =>
      call(two.base, 'POST', '/v1/kept/node/_insert', {
        ...(token ? { token } : {}),
        body: { schema: 'member', key: { type: 'member_id', id: 'm-1' }, ids: [{ type: 'device', id: device }] },
      });
    // The other process's writes read the policy once, and then keep it.
    expect((await call(two.base, 'POST', '/v1/kept/node/_create', { body: { schema: 'member', key: { type: 'member_id', id: 'm-1' } } })).status).toBe(201);
    expect((await insert('phone-1')).status).toBe(201);

    // A value blocked since, a write of another value, and the value once the block is lifted.
    const blocked = { rules: [{ type: 'device', values: ['phone-2'] }] };
    expect((await call(one.base, 'PUT', '/v1/kept/blocklist', { token: ADMIN_TOKEN, body: blocked })).status).toBe(200);
    expect(await insert('phone-2')).toMatchObject({ status: 422, json: { code: 'blocked_id' } });
    expect((await insert('phone-3')).status).toBe(201);
    expect((await call(one.base, 'PUT', '/v1/kept/blocklist', { token: ADMIN_TOKEN, body: { rules: [] } })).status).toBe(200);
    expect((await insert('phone-2')).status).toBe(201);

    // A token required since, and then no longer.
    expect((await call(one.base, 'PUT', '/v1/kept/settings', { token: ADMIN_TOKEN, body: { require_token: true } })).status).toBe(200);
    // A delete first: checked against the policy the process kept (no token required), read again in its transaction.
    const remove = (token?: string) =>
      call(two.base, 'POST', '/v1/kept/node/_delete', {
        ...(token ? { token } : {}),
        body: { schema: 'member', key: { type: 'member_id', id: 'm-1' }, where: { type: 'device', id: 'phone-0' } },
      });
    expect(await remove()).toMatchObject({ status: 401, json: { code: 'authentication_required' } });
    expect((await remove(ADMIN_TOKEN)).status).toBe(204);
    expect(await insert('phone-4')).toMatchObject({ status: 401, json: { code: 'authentication_required' } });
    expect((await insert('phone-4', ADMIN_TOKEN)).status).toBe(201);
    expect((await call(one.base, 'PUT', '/v1/kept/settings', { token: ADMIN_TOKEN, body: { require_token: false } })).status).toBe(200);
    expect((await insert('phone-5')).status).toBe(201);

    // A type declared since.
    const widened = { id_types: [...schema.id_types, { type: 'cookie' }] };
    expect((await call(one.base, 'PUT', '/v1/kept/schema/member', { token: ADMIN_TOKEN, body: widened })).status).toBe(200);
    const cookie = { schema: 'member', key: { type: 'member_id', id: 'm-1' }, ids: [{ type: 'cookie', id: 'c-1' }] };
    expect((await call(two.base, 'POST', '/v1/kept/node/_insert', { body: cookie })).status).toBe(201);

    expect((await call(one.base, 'POST', '/v1/kept/_search', { body: byKey('member', 'm-1') })).json).toEqual({
      results: [
        { type: 'cookie', id: 'c-1' },
        ...['phone-1', 'phone-2', 'phone-3', 'phone-4', 'phone-5'].map((id) => ({ type: 'device', id })),
        { type: 'member_id', id: 'm-1' },
      ],
      total: 7,
    });
  });

  test("when one process makes a type secure or changes the time zone, then the other's next _eligible and _impression answer the change, though it kept the policy", async () => {
    const open = { id_types: [{ type: 'member_id' }, { type: 'email' }] };
    expect((await call(one.base, 'PUT', '/v1/keptshow/schema/member', { token: ADMIN_TOKEN, body: open })).status).toBe(201);
    const node = { schema: 'member', key: { type: 'member_id', id: 'm-1' }, ids: [{ type: 'email', id: 'ann@example.com' }] };
    expect((await call(one.base, 'POST', '/v1/keptshow/node/_create', { body: node })).status).toBe(201);
    const issued = await call(one.base, 'POST', '/v1/keptshow/token', { token: ADMIN_TOKEN, body: { kind: 'mapi' } });
    const mapi = { 'x-service-mapi-token': (issued.json as { token: string }).token };
    // In period on 1 December 2026, with caps far from reached.
    const delivery = buildDelivery({
      condition: buildCondition({
        trigger: { event_name: ['app_open'], period: [{ start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z' }] },
        max_total_count: 1000,
        max_total_count_per_day: 1000,
      }),
    });
    const created = await call(one.base, 'POST', '/v1/delivery', { headers: mapi, body: delivery });
    expect(created.status).toBe(201);
    const deliveryId = (created.json as { delivery_id: number }).delivery_id;
    const byMember = { type: 'member_id', id: 'm-1' };
    const shown = (at: string) =>
      call(two.base, 'POST', `/v1/delivery/${deliveryId}/_impression`, { headers: mapi, body: { user: byMember, platform: 'ios', at } });
    const eligible = (user: object) =>
      call(two.base, 'POST', '/v1/delivery/_eligible', { headers: mapi, body: { user, event_name: 'app_open', at: '2026-12-01T12:00:00Z' } });

    // The other process reads the policy once, and then keeps it.
    expect((await eligible({ type: 'email', id: 'ann@example.com' })).status).toBe(200);
    expect(await shown('2026-12-01T23:30:00Z')).toMatchObject({ status: 201, json: { person_total: 1, person_today: 1 } });

    // 23:40 UTC on 1 December is 2 December in Tokyo: a new day for the person's daily count.
    expect((await call(one.base, 'PUT', '/v1/keptshow/settings', { token: ADMIN_TOKEN, body: { timezone: 'Asia/Tokyo' } })).status).toBe(200);
    expect(await shown('2026-12-01T23:40:00Z')).toMatchObject({ status: 201, json: { person_total: 2, person_today: 1 } });

    const secured = { id_types: [{ type: 'member_id' }, { type: 'email', secure: true }] };
    expect((await call(one.base, 'PUT', '/v1/keptshow/schema/member', { token: ADMIN_TOKEN, body: secured })).status).toBe(200);
    expect(await eligible({ type: 'email', id: 'ann@example.com' })).toMatchObject({ status: 401, json: { code: 'authentication_required' } });
    // Secure no more (once no node holds an email): the refusal kept on the other process is not answered again.
    expect((await call(one.base, 'POST', '/v1/keptshow/node/_delete', { body: { schema: 'member', key: byMember } })).status).toBe(204);
    expect((await call(one.base, 'PUT', '/v1/keptshow/schema/member', { token: ADMIN_TOKEN, body: open })).status).toBe(200);
    expect((await eligible({ type: 'email', id: 'ann@example.com' })).status).toBe(200);
  });

  test("when one process creates, replaces or deletes a delivery, then the other's next _eligible weighs the change, though it kept the catalogue", async () => {
    expect((await call(one.base, 'PUT', '/v1/keptcat/schema/member', { token: ADMIN_TOKEN, body: { id_types: [{ type: 'member_id' }] } })).status).toBe(201);
    const issued = await call(one.base, 'POST', '/v1/keptcat/token', { token: ADMIN_TOKEN, body: { kind: 'mapi' } });
    const mapi = { 'x-service-mapi-token': (issued.json as { token: string }).token };
    // In period on 1 December 2026, with caps far from reached.
    const condition = (overrides: object = {}) =>
      buildCondition({
        trigger: { event_name: ['app_open'], period: [{ start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z' }] },
        max_total_count: 1000,
        max_total_count_per_day: 1000,
        ...overrides,
      });
    const create = async () => {
      const created = await call(one.base, 'POST', '/v1/delivery', { headers: mapi, body: buildDelivery({ condition: condition() }) });
      expect(created.status).toBe(201);
      return (created.json as { delivery_id: number }).delivery_id;
    };
    const user = { type: 'member_id', id: 'm-1' };
    const shownByTwo = async () => {
      const answer = await call(two.base, 'POST', '/v1/delivery/_eligible', {
        headers: mapi,
        body: { user, event_name: 'app_open', at: '2026-12-01T12:00:00Z' },
      });
      expect(answer.status).toBe(200);
      const { deliveries } = answer.json as { deliveries: Array<{ delivery_id: number; condition: { delivery_count: number } }> };
      return deliveries.map((d) => [d.delivery_id, d.condition.delivery_count]).sort((a, b) => (a[0] as number) - (b[0] as number));
    };

    const first = await create();
    // The other process reads the catalogue once, and then keeps it.
    expect(await shownByTwo()).toEqual([[first, 0]]);
    expect(await shownByTwo()).toEqual([[first, 0]]);
    const second = await create();
    expect(await shownByTwo()).toEqual([
      [first, 0],
      [second, 0],
    ]);
    // A display counted through the first process shows in the other's counts at once (they are read live).
    const shown = await call(one.base, 'POST', `/v1/delivery/${second}/_impression`, {
      headers: mapi,
      body: { user, platform: 'ios', at: '2026-12-01T12:00:00Z' },
    });
    expect(shown.status).toBe(201);
    expect(await shownByTwo()).toEqual([
      [first, 0],
      [second, 1],
    ]);
    const replaced = await call(one.base, 'PUT', `/v1/delivery/${first}`, {
      headers: mapi,
      body: buildDelivery({ condition: condition({ is_active: false }) }),
    });
    expect(replaced.status).toBe(200);
    expect(await shownByTwo()).toEqual([[second, 1]]);
    expect((await call(one.base, 'DELETE', `/v1/delivery/${second}`, { headers: mapi })).status).toBe(204);
    expect(await shownByTwo()).toEqual([]);
  });

  test('when a write is answered 2xx by one process, then a search on the other sees it at once', async () => {
    const schema = { id_types: [{ type: 'member_id' }, { type: 'device' }] };
    expect((await call(one.base, 'PUT', '/v1/reads/schema/member', { token: ADMIN_TOKEN, body: schema })).status).toBe(201);
    const seenBy = async (service: Service, memberId: string) =>
      ((await call(service.base, 'POST', '/v1/reads/_search', { body: byKey('member', memberId) })).json as SearchAnswer).results.map((r) => r.id);

    for (let i = 0; i < 15; i += 1) {
      const [writer, reader] = i % 2 === 0 ? [one, two] : [two, one];
      const key = { type: 'member_id', id: `m-${i}` };
      expect((await call(writer.base, 'POST', '/v1/reads/node/_create', { body: { schema: 'member', key } })).status).toBe(201);
      expect(await seenBy(reader, key.id)).toEqual([key.id]);

      const inserted = { schema: 'member', key, ids: [{ type: 'device', id: `d-${i}` }] };
      expect((await call(reader.base, 'POST', '/v1/reads/node/_insert', { body: inserted })).status).toBe(201);
      expect(await seenBy(writer, key.id)).toEqual([`d-${i}`, key.id]);

      expect((await call(writer.base, 'POST', '/v1/reads/node/_delete', { body: { schema: 'member', key } })).status).toBe(204);
      expect(await seenBy(reader, key.id)).toEqual([]);
    }
  });

  describe('the change feed across processes', () => {
    type Change = { cursor: string; op: string; key: { id: string } };
    type Page = { changes: Change[]; next: string };
    const feed = async (service: Service, customer: string, query: string): Promise<Page> => {
      const answer = await call(service.base, 'GET', `/v1/${customer}/_changes?${query}`, { token: ADMIN_TOKEN, timeoutMs: 40_000 });
      expect(answer.status).toBe(200);
      return answer.json as Page;
    };

    test('when a call waits on one process, then a write through the other wakes it with that write', async () => {
      const schema = { id_types: [{ type: 'member_id' }] };
      expect((await call(one.base, 'PUT', '/v1/feed-wake/schema/member', { token: ADMIN_TOKEN, body: schema })).status).toBe(201);
      const { next } = await feed(one, 'feed-wake', '');
      const waiting = feed(one, 'feed-wake', `after=${next}&wait=30`);
      // The write is sent once the call waits (the other process's gauge of waiting calls says so).
      for (let i = 0; ; i += 1) {
        const metrics = await fetch(`${one.base}/metrics`).then((r) => r.text());
        if (/^idlink_changes_waiting [1-9]/m.test(metrics)) break;
        if (i > 2000) throw new Error('no call waited');
        await new Promise((resolve) => setImmediate(resolve));
      }
      const key = { type: 'member_id', id: 'woken' };
      expect((await call(two.base, 'POST', '/v1/feed-wake/node/_create', { body: { schema: 'member', key } })).status).toBe(201);
      expect((await waiting).changes.map((c) => [c.op, c.key.id])).toEqual([['create', 'woken']]);
    });

    test('when both processes write one customer at once while a consumer follows, then it sees every change once, and each write after the one answered before it was sent', async () => {
      const schema = { id_types: [{ type: 'member_id' }, { type: 'device' }] };
      expect((await call(one.base, 'PUT', '/v1/feed-race/schema/member', { token: ADMIN_TOKEN, body: schema })).status).toBe(201);
      const seen: Change[] = [];
      let writing = true;
      const consumer = (async () => {
        let next = '';
        for (;;) {
          const done = !writing;
          const page = await feed(seen.length % 2 === 0 ? one : two, 'feed-race', `limit=9${next ? `&after=${next}` : ''}`);
          seen.push(...page.changes);
          next = page.next;
          if (done && page.changes.length < 9) return;
        }
      })();
      // Eight chains of six creates, each of a node of its own, through one process and the other in turn: each write
      // is sent once the one before it in its chain was answered, so the feed must have them in the chain's order.
      const chains = Array.from({ length: 8 }, (_, chain) => async () => {
        for (let i = 0; i < 6; i += 1) {
          const service = (chain + i) % 2 === 0 ? one : two;
          const key = { type: 'member_id', id: `c${chain}-${i}` };
          expect((await call(service.base, 'POST', '/v1/feed-race/node/_create', { body: { schema: 'member', key } })).status).toBe(201);
        }
      });
      await Promise.all(chains.map((run) => run()));
      writing = false;
      await consumer;
      const all: Change[] = [];
      for (let next = ''; ;) {
        const page = await feed(one, 'feed-race', `limit=1000${next ? `&after=${next}` : ''}`);
        all.push(...page.changes);
        next = page.next;
        if (page.changes.length < 1000) break;
      }
      expect(all).toHaveLength(8 * 6);
      expect(seen.map((c) => c.cursor)).toEqual(all.map((c) => c.cursor));
      // Within each chain, every write came after the one answered before it was sent, whatever node it wrote.
      for (let chain = 0; chain < 8; chain += 1) {
        const written = all.map((c) => c.key.id).filter((k) => k.startsWith(`c${chain}-`));
        expect(written).toEqual(Array.from({ length: 6 }, (_, i) => `c${chain}-${i}`));
      }
    }, 120_000);
  });
});
