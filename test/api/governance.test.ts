// Governance through HTTP (docs/history-and-erasure.md): a node's history (GET /v1/{customer_id}/node/_history) and erasure
// (POST /v1/{customer_id}/_erase). Who may call them, what each write records (actor, request id, op, values),
// paging like the delivery list, what an erase takes away (nodes, searches, history, logs) and what a refused
// request leaves alone. Every claim is read back through HTTP. This file also runs on Neo4j (npm run test:neo4j).
import type { Response } from 'supertest';
import type { components } from '../../src/generated/openapi';
import { recordingRequestIds, untilAccessLogged } from '../helpers/access-log';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { bulkChecked } from '../helpers/bulk';
import {
  expectAuthenticationRequired,
  expectInvalidToken,
  issueLabelledToken,
  nodePath,
  type NodeOperation,
  revokeToken,
  searchPath,
  unknownToken,
} from '../helpers/builders-auth';
import { buildSearch, errorPaths, expectProblem, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { putSchema, type IdPairBody } from '../helpers/factories';

const admin = { token: ADMIN_TOKEN };
const m = (value: string) => id('member_id', value);
const device = (value: string) => id('device', value);
const cookie = (value: string) => id('cookie', value);
const email = (value: string) => id('email', value);

/** An ID as history shows it, and what an erase leaves of one. */
type HistoryId = components['schemas']['HistoryId'];
const gone = (type: string): HistoryId => ({ type, id: null, erased: true });

type HistoryEntry = components['schemas']['HistoryEntry'];

/** member (as the other API tests have it), gadget (keyed by a device), and member with an ip that never links. */
const MEMBER = { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'cookie' }, { type: 'email', secure: true }] };
const GADGET = { id_types: [{ type: 'device' }, { type: 'cookie' }] };
const MEMBER_WITH_IP = { id_types: [...MEMBER.id_types, { type: 'ip', links: false }] };

/** The entry expected, `at` any instant (checked where it matters). */
function entry(
  op: HistoryEntry['op'],
  key: HistoryId,
  added: HistoryId[],
  removed: HistoryId[],
  who: { actor: string; request_id?: string },
  schema = 'member',
): HistoryEntry {
  return {
    at: expect.any(String),
    request_id: who.request_id ?? expect.any(String),
    actor: who.actor,
    op,
    schema,
    key,
    added,
    removed,
  };
}

const anonymous = { actor: 'anonymous' };
const byAdmin = { actor: 'admin' };

/** Every secure, erased or secret string this file sends: the log check at the end looks for each. */
const mustNotBeLogged = new Set<string>();
const secret = <T extends IdPairBody>(pair: T): T => {
  mustNotBeLogged.add(pair.id);
  return pair;
};

describe('governance: history and erasure', () => {
  let app: TestApp & { requestIds: string[] };
  beforeAll(async () => {
    app = recordingRequestIds(await startApp());
  });
  afterAll(() => app.close());

  // ---- calls

  const historyUrl = (customer: string, key: IdPairBody, query = '', schema = 'member') =>
    `/v1/${customer}/node/_history?${new URLSearchParams({ schema, key_type: key.type, key_id: key.id }).toString()}${query}`;
  const getHistory = (
    customer: string,
    key: IdPairBody,
    options: { token?: string; query?: string; schema?: string; headers?: Record<string, string> } = admin,
  ) =>
    app.call('GET', historyUrl(customer, key, options.query ?? '', options.schema), {
      ...(options.token ? { token: options.token } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
    });
  /** Every entry under the key, newest first, read in one page as the administrator. */
  async function historyOf(customer: string, key: IdPairBody, schema = 'member'): Promise<HistoryEntry[]> {
    const res = await getHistory(customer, key, { token: ADMIN_TOKEN, query: '&count=100', schema });
    if (res.status !== 200) throw new Error(`history failed: ${res.status} ${res.text}`);
    expect(res.headers['x-total-count']).toBe(String((res.body as unknown[]).length));
    return res.body as HistoryEntry[];
  }
  const eraseUrl = (customer: string) => `/v1/${customer}/_erase`;
  /** An erase, as the administrator unless `token` names another caller (null: none). */
  const erase = (customer: string, body: unknown, token: string | null = ADMIN_TOKEN, headers?: Record<string, string>) =>
    app.call('POST', eraseUrl(customer), { body, ...(token ? { token } : {}), ...(headers ? { headers } : {}) });
  const post = (customer: string, op: NodeOperation, body: unknown, token?: string, headers?: Record<string, string>) =>
    app.call('POST', nodePath(customer, op), { body, ...(token ? { token } : {}), ...(headers ? { headers } : {}) });
  async function write(customer: string, op: NodeOperation, body: unknown, token?: string): Promise<Response> {
    const res = await post(customer, op, body, token);
    if (res.status >= 300) throw new Error(`${op} failed: ${res.status} ${res.text}`);
    return res;
  }
  /** A create without a token (anonymous) unless `token` is given. */
  const create = (customer: string, key: IdPairBody, ids: IdPairBody[] = [], schema = 'member', token?: string) =>
    write(customer, '_create', { schema, key, ids }, token);
  const held = (customer: string, key: IdPairBody, schema = 'member') => app.store.getNodeIds({ customerId: customer, schemaId: schema, key });
  /** The IDs an administrator's search (step ALL) from the holders of `value` finds; [] when nothing holds it. */
  async function reached(customer: string, value: IdPairBody): Promise<IdPairBody[]> {
    const res = await app.call('POST', searchPath(customer), { ...admin, body: buildSearch({ where: value }, { step: 'ALL' }) });
    if (res.status !== 200) throw new Error(`search failed: ${res.status} ${res.text}`);
    return (res.body as { results: IdPairBody[] }).results;
  }
  const names = (e: HistoryEntry, value: IdPairBody) => [e.key, ...e.added, ...e.removed].some((h) => h.type === value.type && h.id === value.id);
  const show = (value: IdPairBody) => `${value.type}=${value.id}`;

  async function customerWith(schemas: Record<string, object> = { member: MEMBER }): Promise<string> {
    const customer = uniqueCustomer('gov');
    for (const [schemaId, body] of Object.entries(schemas)) await putSchema(app, customer, schemaId, body);
    return customer;
  }
  async function bearerOf(customer: string, kind: 'bearer' | 'mapi' = 'bearer') {
    const issued = await issueLabelledToken(app, customer, kind);
    mustNotBeLogged.add(issued.token);
    return issued;
  }
  const putSettings = async (customer: string, settings: object) => {
    const res = await app.call('PUT', `/v1/${customer}/settings`, { ...admin, body: settings });
    if (res.status !== 200) throw new Error(`settings failed: ${res.status} ${res.text}`);
  };

  // ------------------------------------------------------------------ who may call
  describe('who may read history and erase', () => {
    /** A customer with m-1 (holding a device), its bearer and mapi tokens, and another customer's bearer token. */
    async function setUp(settings?: object) {
      const customer = await customerWith();
      if (settings) await putSettings(customer, settings);
      await create(customer, m('m-1'), [device('d-1')], 'member', ADMIN_TOKEN);
      const other = await customerWith();
      return { customer, own: await bearerOf(customer), mapi: await bearerOf(customer, 'mapi'), foreign: await bearerOf(other) };
    }
    /** Nothing an erase could have changed did: the node, what a search finds, and the history. */
    async function expectUnchanged(customer: string) {
      expect(await held(customer, m('m-1'))).toEqual([device('d-1'), m('m-1')]);
      expect(await reached(customer, device('d-1'))).toEqual([device('d-1'), m('m-1')]);
      expect((await historyOf(customer, m('m-1'))).map((e) => e.op)).toEqual(['create']);
    }
    const eraseBody = { id: device('d-1'), scope: 'person' };

    test.each([
      ['by default', undefined],
      ['when the customer requires a token', { require_token: true }],
    ])(
      '%s, when history is read without a token (the types are all open), then 401 authentication_required with a Bearer challenge',
      async (_name, settings) => {
        const { customer } = await setUp(settings);
        expectAuthenticationRequired(await getHistory(customer, m('m-1'), {}));
      },
    );

    test.each([
      ['by default', undefined],
      ['when the customer requires a token', { require_token: true }],
    ])('%s, when an erase comes without a token, then 401 authentication_required and nothing is erased', async (_name, settings) => {
      const { customer } = await setUp(settings);
      expectAuthenticationRequired(await erase(customer, eraseBody, null));
      await expectUnchanged(customer);
    });

    test("when another customer's bearer token is sent, then 403 forbidden to both endpoints and nothing is erased", async () => {
      const { customer, foreign } = await setUp();
      expectProblem(await getHistory(customer, m('m-1'), { token: foreign.token }), 403, 'forbidden');
      expectProblem(await erase(customer, eraseBody, foreign.token), 403, 'forbidden');
      await expectUnchanged(customer);
    });

    test("when the customer's own mapi token is sent as a bearer token, then 403 forbidden to both endpoints and nothing is erased", async () => {
      const { customer, mapi } = await setUp();
      expectProblem(await getHistory(customer, m('m-1'), { token: mapi.token }), 403, 'forbidden');
      expectProblem(await erase(customer, eraseBody, mapi.token), 403, 'forbidden');
      await expectUnchanged(customer);
    });

    test('when a mapi token comes in X-SERVICE-MAPI-TOKEN only, then both endpoints see no bearer token: 401 authentication_required', async () => {
      const { customer, mapi } = await setUp();
      const headers = { 'X-SERVICE-MAPI-TOKEN': mapi.token };
      expectAuthenticationRequired(await getHistory(customer, m('m-1'), { headers }));
      expectAuthenticationRequired(await erase(customer, eraseBody, null, headers));
      await expectUnchanged(customer);
    });

    test('when an unknown or a revoked token is sent, then 401 invalid_token to both endpoints and nothing is erased', async () => {
      const { customer, own } = await setUp();
      await revokeToken(app, customer, own.token_id);
      for (const token of [unknownToken(), own.token]) {
        expectInvalidToken(await getHistory(customer, m('m-1'), { token }));
        expectInvalidToken(await erase(customer, eraseBody, token));
      }
      await expectUnchanged(customer);
    });

    test.each([
      ['by default', undefined],
      ['when the customer requires a token', { require_token: true }],
    ])("%s, when the customer's bearer token or the administrator token is sent, then history is 200 and an erase is 200", async (_name, settings) => {
      const { customer, own } = await setUp(settings);
      for (const token of [own.token, ADMIN_TOKEN]) {
        const res = await getHistory(customer, m('m-1'), { token });
        expect(res.status).toBe(200);
        expect((res.body as HistoryEntry[]).map((e) => e.op)).toEqual(['create']);
      }
      await create(customer, m('m-2'), [cookie('c-2')], 'member', ADMIN_TOKEN);
      const byToken = await erase(customer, { id: cookie('c-2') }, own.token);
      expect([byToken.status, byToken.body]).toEqual([200, { nodes_deleted: 0, ids_removed: 1 }]);
      const byAdminToken = await erase(customer, { id: device('d-1') }, ADMIN_TOKEN);
      expect([byAdminToken.status, byAdminToken.body]).toEqual([200, { nodes_deleted: 0, ids_removed: 1 }]);
      expect(await held(customer, m('m-1'))).toEqual([m('m-1')]);
      expect(await held(customer, m('m-2'))).toEqual([m('m-2')]);
    });
  });

  // ------------------------------------------------------------------ entries
  describe('what each write records', () => {
    test("when a node is created with the customer's token, then one create entry: key first, then the ids in request order, the token's id as actor and the request's X-Request-Id", async () => {
      const customer = await customerWith();
      const { token, token_id } = await bearerOf(customer);
      const before = Date.now();
      const res = await create(customer, m('m-1'), [cookie('c-2'), secret(email('ann-create@example.com')), device('d-1')], 'member', token);
      const after = Date.now();
      const items = await historyOf(customer, m('m-1'));
      expect(items).toEqual([
        entry('create', m('m-1'), [m('m-1'), cookie('c-2'), email('ann-create@example.com'), device('d-1')], [], {
          actor: `token:${token_id}`,
          request_id: res.headers['x-request-id'],
        }),
      ]);
      expect(String(res.headers['x-request-id']).length).toBeGreaterThan(0);
      const at = items[0]?.at ?? '';
      expect(new Date(at).toISOString()).toBe(at);
      expect(Date.parse(at)).toBeGreaterThanOrEqual(before - 5_000);
      expect(Date.parse(at)).toBeLessThanOrEqual(after + 5_000);
      // The actor names the token's id, never its secret.
      expect(JSON.stringify(items)).not.toContain(token);
    });

    test('when the client sends an X-Request-Id, then the entry records it; admin and anonymous writes are named so', async () => {
      const customer = await customerWith();
      const created = await post(customer, '_create', { schema: 'member', key: m('m-1') }, undefined, { 'X-Request-Id': `req-${customer}-1` });
      expect(created.status).toBe(201);
      const inserted = await post(customer, '_insert', { schema: 'member', key: m('m-1'), ids: [device('d-1')] }, ADMIN_TOKEN, {
        'X-Request-Id': `req-${customer}-2`,
      });
      expect(inserted.status).toBe(201);
      expect(await historyOf(customer, m('m-1'))).toEqual([
        entry('insert', m('m-1'), [device('d-1')], [], { actor: 'admin', request_id: `req-${customer}-2` }),
        entry('create', m('m-1'), [m('m-1')], [], { actor: 'anonymous', request_id: `req-${customer}-1` }),
      ]);
    });

    test('when a node goes through insert, update, upsert (replacing and adding), delete of an ID and delete of the node, then one entry each, newest first, with what each added and removed', async () => {
      const customer = await customerWith();
      const { token, token_id } = await bearerOf(customer);
      const byToken = { actor: `token:${token_id}` };
      await create(customer, m('m-1'), [device('d-1')], 'member', ADMIN_TOKEN);
      await write(customer, '_insert', { schema: 'member', key: m('m-1'), ids: [cookie('c-9'), secret(email('ann-ops@example.com')), cookie('c-1')] }, token);
      await write(customer, '_update', { schema: 'member', key: m('m-1'), where: device('d-1'), set: device('d-2') });
      await write(customer, '_upsert', { schema: 'member', key: m('m-1'), where: cookie('c-9'), set: cookie('c-8') });
      await write(customer, '_upsert', { schema: 'member', key: m('m-1'), where: cookie('c-none'), set: cookie('c-7') });
      await write(customer, '_delete', { schema: 'member', key: m('m-1'), where: cookie('c-1') }, token);
      await write(customer, '_delete', { schema: 'member', key: m('m-1') }, token);
      expect(await held(customer, m('m-1'))).toBeUndefined();

      // History outlives the node: every entry is still there, the whole-node delete listing every ID it held by type then id.
      expect(await historyOf(customer, m('m-1'))).toEqual([
        entry('delete', m('m-1'), [], [cookie('c-7'), cookie('c-8'), device('d-2'), email('ann-ops@example.com'), m('m-1')], byToken),
        entry('delete', m('m-1'), [], [cookie('c-1')], byToken),
        entry('upsert', m('m-1'), [cookie('c-7')], [], anonymous),
        entry('upsert', m('m-1'), [cookie('c-8')], [cookie('c-9')], anonymous),
        entry('update', m('m-1'), [device('d-2')], [device('d-1')], anonymous),
        entry('insert', m('m-1'), [cookie('c-9'), email('ann-ops@example.com'), cookie('c-1')], [], byToken),
        entry('create', m('m-1'), [m('m-1'), device('d-1')], [], byAdmin),
      ]);
      // Newest first, by instant too.
      const ats = (await historyOf(customer, m('m-1'))).map((e) => Date.parse(e.at));
      expect(ats).toEqual([...ats].sort((a, b) => b - a));
    });

    test('when a node is created again under a deleted key, then its history continues under that key', async () => {
      const customer = await customerWith();
      await create(customer, m('m-1'), [device('d-1')]);
      await write(customer, '_delete', { schema: 'member', key: m('m-1') });
      await create(customer, m('m-1'), [device('d-2')]);
      expect((await historyOf(customer, m('m-1'))).map((e) => [e.op, e.added, e.removed])).toEqual([
        ['create', [m('m-1'), device('d-2')], []],
        ['delete', [], [device('d-1'), m('m-1')]],
        ['create', [m('m-1'), device('d-1')], []],
      ]);
    });

    test('when a node is rekeyed, then one rekeying entry (key: the old key, adding the new, removing the old) is found under both keys, and later entries under the new key only', async () => {
      const customer = await customerWith();
      await create(customer, m('m-old'), [device('d-1')]);
      const rekeyed = await write(customer, '_rekeying', { schema: 'member', key: m('m-old'), set: { id: 'm-new' } });
      await write(customer, '_insert', { schema: 'member', key: m('m-new'), ids: [cookie('c-1')] });
      const rekeying = entry('rekeying', m('m-old'), [m('m-new')], [m('m-old')], { actor: 'anonymous', request_id: rekeyed.headers['x-request-id'] });
      const underNew = await historyOf(customer, m('m-new'));
      const underOld = await historyOf(customer, m('m-old'));
      expect(underNew).toEqual([entry('insert', m('m-new'), [cookie('c-1')], [], anonymous), rekeying]);
      expect(underOld).toEqual([rekeying, entry('create', m('m-old'), [m('m-old'), device('d-1')], [], anonymous)]);
      // One entry found under two keys, not two entries.
      expect(underNew[1]).toEqual(underOld[0]);
    });

    test('when writes change nothing or are refused, then they write no entry', async () => {
      const customer = await customerWith();
      await create(customer, m('m-1'), [device('d-1'), device('d-2')]);
      await create(customer, m('m-2'));
      // Changing nothing: an update whose where is not held, an update of an ID to itself, an upsert whose set is
      // held, a delete of an ID not held, a rekeying to the node's own key.
      expect((await post(customer, '_update', { schema: 'member', key: m('m-1'), where: device('d-none'), set: device('d-3') })).status).toBe(200);
      expect((await post(customer, '_update', { schema: 'member', key: m('m-1'), where: device('d-1'), set: device('d-1') })).status).toBe(200);
      expect((await post(customer, '_upsert', { schema: 'member', key: m('m-1'), where: device('d-none'), set: device('d-2') })).status).toBe(200);
      expect((await post(customer, '_delete', { schema: 'member', key: m('m-1'), where: cookie('c-none') })).status).toBe(204);
      expect((await post(customer, '_rekeying', { schema: 'member', key: m('m-1'), set: { id: 'm-1' } })).status).toBe(200);
      // Refused: a create of a taken key, an insert of a held ID, an update onto a held ID, a rekeying onto a taken key,
      // a secure ID without a token.
      expectProblem(await post(customer, '_create', { schema: 'member', key: m('m-1') }), 409, 'node_exists');
      expectProblem(await post(customer, '_insert', { schema: 'member', key: m('m-1'), ids: [cookie('c-1'), device('d-1')] }), 409, 'id_exists');
      expectProblem(await post(customer, '_update', { schema: 'member', key: m('m-1'), where: device('d-1'), set: device('d-2') }), 409, 'id_exists');
      expectProblem(await post(customer, '_rekeying', { schema: 'member', key: m('m-1'), set: { id: 'm-2' } }), 409, 'node_exists');
      expect((await post(customer, '_insert', { schema: 'member', key: m('m-1'), ids: [email('nobody-without-token@example.com')] })).status).toBe(401);
      expectProblem(await post(customer, '_insert', { schema: 'member', key: m('m-ghost'), ids: [cookie('c-1')] }), 404, 'node_not_found');

      expect((await historyOf(customer, m('m-1'))).map((e) => e.op)).toEqual(['create']);
      expect((await historyOf(customer, m('m-2'))).map((e) => e.op)).toEqual(['create']);
      expect(await historyOf(customer, m('m-ghost'))).toEqual([]);
    });

    test('when a key, a schema or a customer has no entries, then 200 [] with X-Total-Count 0 and no link header', async () => {
      const customer = await customerWith();
      await create(customer, m('m-1'));
      for (const res of [
        await getHistory(customer, m('m-unknown')),
        await getHistory(customer, device('m-1')),
        await getHistory(customer, m('m-1'), { token: ADMIN_TOKEN, schema: 'nope' }),
        await getHistory(uniqueCustomer('gov-empty'), m('m-1')),
      ]) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual([]);
        expect(res.headers['x-total-count']).toBe('0');
        expect(res.headers.link).toBeUndefined();
      }
    });

    test("when the customer's token reads the history of a node holding secure IDs, then their values are shown", async () => {
      const customer = await customerWith();
      const { token } = await bearerOf(customer);
      await create(customer, m('m-1'), [secret(email('ann-secure@example.com'))], 'member', token);
      await write(
        customer,
        '_update',
        { schema: 'member', key: m('m-1'), where: email('ann-secure@example.com'), set: secret(email('ann-secure2@example.com')) },
        token,
      );
      const res = await getHistory(customer, m('m-1'), { token });
      expect(res.status).toBe(200);
      expect((res.body as HistoryEntry[]).map((e) => [e.op, e.added, e.removed])).toEqual([
        ['update', [email('ann-secure2@example.com')], [email('ann-secure@example.com')]],
        ['create', [m('m-1'), email('ann-secure@example.com')], []],
      ]);
    });

    test('when a _bulk request mixes applied and refused lines, then each applied line writes its entry with the request id and actor, and a refused one none', async () => {
      const customer = await customerWith();
      const { token, token_id } = await bearerOf(customer);
      // _bulk takes create, insert, upsert and delete lines.
      const lines = [
        { op: 'create', body: { schema: 'member', key: m('m-1'), ids: [device('d-1')] } },
        { op: 'create', body: { schema: 'member', key: m('m-1') } },
        { op: 'insert', body: { schema: 'member', key: m('m-1'), ids: [cookie('c-1'), secret(email('ann-bulk@example.com'))] } },
        { op: 'insert', body: { schema: 'member', key: m('m-1'), ids: [cookie('c-2'), device('d-1')] } },
        { op: 'upsert', body: { schema: 'member', key: m('m-1'), where: device('d-1'), set: device('d-2') } },
        { op: 'upsert', body: { schema: 'member', key: m('m-1'), where: device('d-none'), set: device('d-2') } },
        { op: 'upsert', body: { schema: 'member', key: m('m-1'), where: device('d-none'), set: device('d-3') } },
        { op: 'delete', body: { schema: 'member', key: m('m-1'), where: cookie('c-1') } },
        { op: 'delete', body: { schema: 'member', key: m('m-1'), where: cookie('c-1') } },
        { op: 'insert', body: { schema: 'member', key: m('m-ghost'), ids: [cookie('c-3')] } },
        { op: 'create', body: { schema: 'member', key: m('m-2'), ids: [cookie('c-1')] } },
        { op: 'delete', body: { schema: 'member', key: m('m-1') } },
        { op: 'delete', body: { schema: 'member', key: m('m-1') } },
      ];
      const { res, results } = await bulkChecked(app.baseUrl, customer, lines.map((l) => JSON.stringify(l)).join('\n'), { token });
      expect(res.status).toBe(200);
      expect(results.map((r) => r.status)).toEqual([201, 409, 201, 409, 200, 200, 200, 204, 204, 404, 201, 204, 404]);
      const who = { actor: `token:${token_id}`, request_id: res.headers['x-request-id'] as string };
      expect(await historyOf(customer, m('m-1'))).toEqual([
        entry('delete', m('m-1'), [], [device('d-2'), device('d-3'), email('ann-bulk@example.com'), m('m-1')], who),
        entry('delete', m('m-1'), [], [cookie('c-1')], who),
        entry('upsert', m('m-1'), [device('d-3')], [], who),
        entry('upsert', m('m-1'), [device('d-2')], [device('d-1')], who),
        entry('insert', m('m-1'), [cookie('c-1'), email('ann-bulk@example.com')], [], who),
        entry('create', m('m-1'), [m('m-1'), device('d-1')], [], who),
      ]);
      expect(await historyOf(customer, m('m-2'))).toEqual([entry('create', m('m-2'), [m('m-2'), cookie('c-1')], [], who)]);
      expect(await historyOf(customer, m('m-ghost'))).toEqual([]);
    });
  });

  // ------------------------------------------------------------------ paging
  describe('paging (45 entries under one key)', () => {
    // A key that needs escaping in a URL, to show the links keep it intact.
    const KEY = m('m 1/ä&x=1');
    let customer: string;
    let all: HistoryEntry[];
    beforeAll(async () => {
      customer = await customerWith();
      await create(customer, KEY);
      const lines = Array.from({ length: 44 }, (_, i) =>
        JSON.stringify({ op: 'insert', body: { schema: 'member', key: KEY, ids: [cookie(`c-${String(i + 1).padStart(2, '0')}`)] } }),
      );
      const { results } = await bulkChecked(app.baseUrl, customer, lines.join('\n'), { token: ADMIN_TOKEN });
      expect(results.every((r) => r.status === 201)).toBe(true);
      all = await historyOf(customer, KEY);
    });

    const link = (count: number, page: number) =>
      `<${app.baseUrl}/v1/${customer}/node/_history?${new URLSearchParams({ schema: 'member', key_type: KEY.type, key_id: KEY.id, count: String(count), page: String(page) }).toString()}>`;
    const relNext = (count: number, page: number) => `${link(count, page)}; rel="next"`;
    const relPrevious = (count: number, page: number) => `${link(count, page)}; rel="previous", ${link(count, page)}; rel="prev"`;

    test('when all 45 are read at once, then they come newest first: the last insert first, the create last', () => {
      expect(all).toHaveLength(45);
      expect(all.map((e) => e.added[0]?.id)).toEqual([...Array.from({ length: 44 }, (_, i) => `c-${String(44 - i).padStart(2, '0')}`), KEY.id]);
    });

    test.each([
      { page: 1, from: 0, to: 20, link: () => relNext(20, 2) },
      { page: 2, from: 20, to: 40, link: () => `${relNext(20, 3)}, ${relPrevious(20, 1)}` },
      { page: 3, from: 40, to: 45, link: () => relPrevious(20, 2) },
      { page: 4, from: 45, to: 45, link: () => relPrevious(20, 3) },
    ])('when page $page is asked with count=20, then it holds its slice, the exact link header and X-Total-Count 45', async (w) => {
      const res = await getHistory(customer, KEY, { token: ADMIN_TOKEN, query: `&count=20&page=${w.page}` });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(all.slice(w.from, w.to));
      expect(res.headers.link).toBe(w.link());
      expect(res.headers['x-total-count']).toBe('45');
    });

    test('when count and page are absent, then 20 come and the links carry count=20 and every other query parameter', async () => {
      const res = await getHistory(customer, KEY, admin);
      expect(res.body).toEqual(all.slice(0, 20));
      expect(res.headers.link).toBe(relNext(20, 2));
    });

    test('when the next links are followed from the first page, then every entry comes once, in order, and the last page has no next link', async () => {
      const seen: HistoryEntry[] = [];
      let url: string | undefined = historyUrl(customer, KEY, '&count=7');
      let pages = 0;
      while (url) {
        const res = await app.call('GET', url, admin);
        expect(res.status).toBe(200);
        seen.push(...(res.body as HistoryEntry[]));
        pages += 1;
        const next = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1];
        url = next === undefined ? undefined : next.slice(app.baseUrl.length);
      }
      expect(pages).toBe(7);
      expect(seen).toEqual(all);
    });

    test('when count is 1, or 100, or the page is 1000000, then the page, links and X-Total-Count follow', async () => {
      const one = await getHistory(customer, KEY, { token: ADMIN_TOKEN, query: '&count=1' });
      expect([one.body, one.headers.link, one.headers['x-total-count']]).toEqual([all.slice(0, 1), relNext(1, 2), '45']);
      const hundred = await getHistory(customer, KEY, { token: ADMIN_TOKEN, query: '&count=100&page=1' });
      expect([hundred.body, hundred.headers.link, hundred.headers['x-total-count']]).toEqual([all, undefined, '45']);
      const far = await getHistory(customer, KEY, { token: ADMIN_TOKEN, query: '&page=1000000' });
      expect([far.status, far.body, far.headers.link]).toEqual([200, [], relPrevious(20, 999999)]);
    });

    test("when the customer's token pages, then it sees the same pages as the administrator", async () => {
      const { token } = await bearerOf(customer);
      const res = await getHistory(customer, KEY, { token, query: '&count=20&page=2' });
      expect([res.status, res.body, res.headers['x-total-count']]).toEqual([200, all.slice(20, 40), '45']);
    });
  });

  // ------------------------------------------------------------------ bad requests
  describe('bad requests', () => {
    let customer: string;
    let token: string;
    beforeAll(async () => {
      customer = await customerWith();
      token = (await bearerOf(customer)).token;
      await create(customer, m('m-1'), [device('d-1'), cookie('c-1')]);
    });
    const base = `schema=member&key_type=member_id&key_id=m-1`;

    test.each([
      { query: `${base}&count=0`, path: '/query/count' },
      { query: `${base}&count=101`, path: '/query/count' },
      { query: `${base}&count=abc`, path: '/query/count' },
      { query: `${base}&count=1.5`, path: '/query/count' },
      { query: `${base}&count=`, path: '/query/count' },
      { query: `${base}&page=0`, path: '/query/page' },
      { query: `${base}&page=-1`, path: '/query/page' },
      { query: `${base}&page=1000001`, path: '/query/page' },
      { query: `${base}&page=1e1`, path: '/query/page' },
      { query: 'schema=member&key_type=member_id', path: '/query/key_id' },
      { query: 'schema=member&key_id=m-1', path: '/query/key_type' },
      { query: 'key_type=member_id&key_id=m-1', path: '/query/schema' },
      { query: `schema=member&key_type=member_id&key_id=`, path: '/query/key_id' },
      { query: `schema=member&key_type=member_id&key_id=${'x'.repeat(1025)}`, path: '/query/key_id' },
      { query: `schema=mem ber&key_type=member_id&key_id=m-1`, path: '/query/schema' },
      { query: `schema=member&key_type=${'t'.repeat(65)}&key_id=m-1`, path: '/query/key_type' },
      { query: `${base}&colour=red`, path: '/query/colour' },
    ])('when history is asked with $query, then 400 validation_failed naming $path', async ({ query, path }) => {
      const res = await app.call('GET', `/v1/${customer}/node/_history?${query}`, { token });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toContain(path);
    });

    test('when key_id is exactly 1024 characters, then it is accepted (and names no node)', async () => {
      const res = await app.call('GET', `/v1/${customer}/node/_history?schema=member&key_type=member_id&key_id=${'x'.repeat(1024)}`, { token });
      expect([res.status, res.body]).toEqual([200, []]);
    });

    test.each([
      { name: 'no id', body: { scope: 'id' }, path: '/body/id' },
      { name: 'an unknown scope', body: { id: device('d-1'), scope: 'all' }, path: '/body/scope' },
      { name: 'a scope of the wrong type', body: { id: device('d-1'), scope: 1 }, path: '/body/scope' },
      { name: 'an extra field', body: { id: device('d-1'), force: true }, path: '/body/force' },
      { name: 'an id without its type', body: { id: { id: 'd-1' } }, path: '/body/id/type' },
      { name: 'an id value of 1025 characters', body: { id: device('x'.repeat(1025)) }, path: '/body/id/id' },
      { name: 'an empty id value', body: { id: device('') }, path: '/body/id/id' },
      { name: 'an id that is a string', body: { id: 'd-1' }, path: '/body/id' },
      { name: 'an array', body: [{ id: device('d-1') }], path: '/body' },
    ])('when an erase has $name, then 400 validation_failed naming $path, and nothing is erased', async ({ body, path }) => {
      const res = await erase(customer, body, token);
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toContain(path);
      expect(await held(customer, m('m-1'))).toEqual([cookie('c-1'), device('d-1'), m('m-1')]);
      expect((await historyOf(customer, m('m-1'))).map((e) => e.op)).toEqual(['create']);
    });

    test('when an erase body is not JSON, or not sent as JSON, then a problem (400 invalid_json, 415) and nothing is erased', async () => {
      const broken = await app.call('POST', eraseUrl(customer), {
        token,
        headers: { 'Content-Type': 'application/json' },
        body: '{"id": {"type": "device", "id": "d-1"',
      });
      expectProblem(broken, 400, 'invalid_json');
      const asText = await app.call('POST', eraseUrl(customer), {
        token,
        headers: { 'Content-Type': 'text/plain' },
        body: JSON.stringify({ id: device('d-1') }),
      });
      expect(asText.status).toBe(415);
      expect(asText.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(await held(customer, m('m-1'))).toEqual([cookie('c-1'), device('d-1'), m('m-1')]);
      expect(await reached(customer, device('d-1'))).toEqual([cookie('c-1'), device('d-1'), m('m-1')]);
    });
  });

  // ------------------------------------------------------------------ erasure
  describe('erasure', () => {
    test('when an ID is erased (scope id is the default), then the node keyed by it is deleted, the others lose it, searches no longer find it and history shows it erased', async () => {
      const customer = await customerWith({ member: MEMBER, gadget: GADGET });
      const { token, token_id } = await bearerOf(customer);
      const value = secret(device('d-erase-1'));
      await create(customer, value, [cookie('c-g')], 'gadget');
      await create(customer, m('m-1'), [value, cookie('c-1')]);
      await create(customer, m('m-2'), [value]);
      await create(customer, m('m-3'), [device('d-other')]);
      // m-1 let it go once and took it back: three entries name it.
      await write(customer, '_delete', { schema: 'member', key: m('m-1'), where: value });
      await write(customer, '_insert', { schema: 'member', key: m('m-1'), ids: [value] });
      expect(await reached(customer, value)).toEqual([cookie('c-1'), cookie('c-g'), value, m('m-1'), m('m-2')]);

      const res = await erase(customer, { id: value }, token, { 'X-Request-Id': `erase-${customer}` });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ nodes_deleted: 1, ids_removed: 2 });

      expect(await held(customer, value, 'gadget')).toBeUndefined();
      expect(await held(customer, m('m-1'))).toEqual([cookie('c-1'), m('m-1')]);
      expect(await held(customer, m('m-2'))).toEqual([m('m-2')]);
      expect(await held(customer, m('m-3'))).toEqual([device('d-other'), m('m-3')]);
      expect(await reached(customer, value)).toEqual([]);
      expect(await reached(customer, cookie('c-g'))).toEqual([]);
      expect(await reached(customer, cookie('c-1'))).toEqual([cookie('c-1'), m('m-1')]);

      const erasedBy = { actor: `token:${token_id}`, request_id: `erase-${customer}` };
      expect(await historyOf(customer, m('m-1'))).toEqual([
        entry('erase', m('m-1'), [], [gone('device')], erasedBy),
        entry('insert', m('m-1'), [gone('device')], [], anonymous),
        entry('delete', m('m-1'), [], [gone('device')], anonymous),
        entry('create', m('m-1'), [m('m-1'), gone('device'), cookie('c-1')], [], anonymous),
      ]);
      expect(await historyOf(customer, m('m-2'))).toEqual([
        entry('erase', m('m-2'), [], [gone('device')], erasedBy),
        entry('create', m('m-2'), [m('m-2'), gone('device')], [], anonymous),
      ]);
      // The node keyed by the erased value: its entries are no longer found under it. A node that never held it is untouched.
      expect(await historyOf(customer, value, 'gadget')).toEqual([]);
      expect((await historyOf(customer, m('m-3'))).map((e) => e.op)).toEqual(['create']);
    });

    test('when a person is erased, then every node of the component goes, a node outside it stays, and none of their values is found by search or named in history', async () => {
      const customer = await customerWith();
      const { token, token_id } = await bearerOf(customer);
      // Bob held ann's first address before she did, and keeps his own component.
      await create(customer, m('b-1'), [secret(email('ann-person@example.com')), cookie('c-bob')], 'member', token);
      await write(
        customer,
        '_update',
        { schema: 'member', key: m('b-1'), where: email('ann-person@example.com'), set: email('bob-person@example.com') },
        token,
      );
      // Ann: a-1, a-2 (first keyed a-2-old) and a-3, linked by cookies.
      await create(customer, m('ann-key-1'), [email('ann-person@example.com'), secret(cookie('c-ann-1'))], 'member', token);
      await write(
        customer,
        '_update',
        { schema: 'member', key: m('ann-key-1'), where: email('ann-person@example.com'), set: secret(email('ann-person2@example.com')) },
        token,
      );
      await create(customer, m('ann-key-2-old'), [cookie('c-ann-1'), secret(cookie('c-ann-2'))]);
      await write(customer, '_rekeying', { schema: 'member', key: m('ann-key-2-old'), set: { id: 'ann-key-2' } });
      await create(customer, m('ann-key-3'), [cookie('c-ann-2'), secret(device('d-ann'))]);
      const annValues = [email('ann-person@example.com'), email('ann-person2@example.com'), cookie('c-ann-1'), cookie('c-ann-2'), device('d-ann')]
        .concat(['ann-key-1', 'ann-key-2', 'ann-key-2-old', 'ann-key-3'].map(m))
        .map(secret);
      expect(await reached(customer, device('d-ann'))).toHaveLength(7);

      const res = await erase(customer, { id: device('d-ann'), scope: 'person' }, token);
      expect([res.status, res.body]).toEqual([200, { nodes_deleted: 3, ids_removed: 0 }]);

      for (const key of ['ann-key-1', 'ann-key-2', 'ann-key-3']) expect(await held(customer, m(key))).toBeUndefined();
      expect(await held(customer, m('b-1'))).toEqual([cookie('c-bob'), email('bob-person@example.com'), m('b-1')]);
      for (const value of annValues) expect([show(value), await reached(customer, value)]).toEqual([show(value), []]);
      // Ann's history is found under none of her keys (the old one included); Bob's no longer names her first address.
      for (const key of ['ann-key-1', 'ann-key-2', 'ann-key-2-old', 'ann-key-3']) expect([key, await historyOf(customer, m(key))]).toEqual([key, []]);
      const bob = await historyOf(customer, m('b-1'));
      const byToken = { actor: `token:${token_id}` };
      expect(bob).toEqual([
        // The erase took nothing from Bob but rewrote his history: an erase entry without values says so.
        entry('erase', m('b-1'), [], [], byToken),
        entry('update', m('b-1'), [email('bob-person@example.com')], [gone('email')], byToken),
        entry('create', m('b-1'), [m('b-1'), gone('email'), cookie('c-bob')], [], byToken),
      ]);
      for (const e of bob) expect(annValues.filter((v) => names(e, v)).map(show)).toEqual([]);
    });

    test('when the erased person holds an ip that never links, then the erase does not step through it: the other holder keeps its node and the ip, and a node of the person keyed by that ip goes but its history stays, ending with an erase entry without values', async () => {
      const customer = await customerWith({ member: MEMBER_WITH_IP, lease: { id_types: [{ type: 'ip', links: false }, { type: 'cookie' }] } });
      const ip = id('ip', '10.0.0.1');
      await create(customer, m('p-1'), [ip, secret(cookie('c-pat'))]);
      await create(customer, ip, [cookie('c-pat')], 'lease');
      await create(customer, m('o-1'), [ip, cookie('c-other')]);
      const res = await erase(customer, { id: cookie('c-pat'), scope: 'person' });
      expect([res.status, res.body]).toEqual([200, { nodes_deleted: 2, ids_removed: 0 }]);
      expect(await held(customer, m('p-1'))).toBeUndefined();
      expect(await held(customer, ip, 'lease')).toBeUndefined();
      expect(await held(customer, m('o-1'))).toEqual([cookie('c-other'), ip, m('o-1')]);
      expect(await reached(customer, ip)).toEqual([cookie('c-other'), ip, m('o-1')]);
      expect(await historyOf(customer, m('o-1'))).toEqual([entry('create', m('o-1'), [m('o-1'), ip, cookie('c-other')], [], anonymous)]);
      const lease = await historyOf(customer, ip, 'lease');
      expect(lease.map((e) => [e.op, e.actor, e.key])).toEqual([
        ['erase', 'admin', ip],
        ['create', 'anonymous', ip],
      ]);
      expect(lease[0]?.added).toEqual([]);
      expect(lease[0]?.removed.length).toBeGreaterThan(0);
      for (const removed of lease[0]?.removed ?? []) expect(removed).toEqual(gone(removed.type));
      expect(lease[1]?.added).toEqual([ip, gone('cookie')]);
    });

    test.each(['id', 'person'])(
      'when the erased value is held by no node (scope %s), then 200 with zeros, nodes are unchanged, and the value still leaves history',
      async (scope) => {
        const customer = await customerWith();
        await create(customer, m('m-1'), [secret(cookie(`c-was-${scope}`)), cookie('c-kept')]);
        await write(customer, '_delete', { schema: 'member', key: m('m-1'), where: cookie(`c-was-${scope}`) });
        const never = await erase(customer, { id: cookie('c-never-held'), scope });
        expect([never.status, never.body]).toEqual([200, { nodes_deleted: 0, ids_removed: 0 }]);
        const res = await erase(customer, { id: cookie(`c-was-${scope}`), scope });
        expect([res.status, res.body]).toEqual([200, { nodes_deleted: 0, ids_removed: 0 }]);
        expect(await held(customer, m('m-1'))).toEqual([cookie('c-kept'), m('m-1')]);
        expect(await historyOf(customer, m('m-1'))).toEqual([
          // Nothing was taken from m-1, but its history was rewritten: an erase entry without values.
          entry('erase', m('m-1'), [], [], byAdmin),
          entry('delete', m('m-1'), [], [gone('cookie')], anonymous),
          entry('create', m('m-1'), [m('m-1'), gone('cookie'), cookie('c-kept')], [], anonymous),
        ]);
      },
    );

    test('when an erased value is written again, then it is held, found and recorded like any other', async () => {
      const customer = await customerWith();
      await create(customer, m('m-1'), [cookie('c-again')]);
      expect((await erase(customer, { id: cookie('c-again') })).body).toEqual({ nodes_deleted: 0, ids_removed: 1 });
      await write(customer, '_insert', { schema: 'member', key: m('m-1'), ids: [cookie('c-again')] });
      expect(await reached(customer, cookie('c-again'))).toEqual([cookie('c-again'), m('m-1')]);
      expect((await historyOf(customer, m('m-1')))[0]).toEqual(entry('insert', m('m-1'), [cookie('c-again')], [], anonymous));
    });

    describe('past TRAVERSAL_MAX_NODES (3)', () => {
      let small: TestApp;
      beforeAll(async () => {
        small = await startApp({ env: { TRAVERSAL_MAX_NODES: '3' } });
      });
      afterAll(() => small.close());

      test('when a person of 4 nodes, or an ID held by 4 nodes, is erased, then 422 component_too_large and nodes, searches and history are unchanged; a person of 3 nodes is erased', async () => {
        const customer = uniqueCustomer('gov-big');
        await putSchema(small, customer, 'member', MEMBER);
        const keys = ['m-1', 'm-2', 'm-3', 'm-4'];
        for (const key of keys) {
          const res = await small.call('POST', nodePath(customer, '_create'), {
            ...admin,
            body: { schema: 'member', key: m(key), ids: [device('d-shared'), cookie(`c-${key}`)] },
          });
          expect(res.status).toBe(201);
        }
        const snapshot = async () => ({
          nodes: await Promise.all(keys.map((key) => small.store.getNodeIds({ customerId: customer, schemaId: 'member', key: m(key) }))),
          history: await Promise.all(keys.map(async (key) => (await small.call('GET', historyUrl(customer, m(key)), admin)).body as unknown)),
          // Past the limit for a search through HTTP too: the store's own search, unbounded.
          search: await small.store.searchWithTypes({
            customerId: customer,
            where: { id: cookie('c-m-1') },
            step: 'ALL',
            exclude: false,
            hiddenTypes: [],
            unlinkedTypes: [],
            limit: 1000,
            maxNodes: 1000,
            maxIds: 1000,
          }),
        });
        const before = await snapshot();
        expect(before.search.total).toBe(9);
        for (const body of [
          { id: cookie('c-m-1'), scope: 'person' },
          { id: device('d-shared'), scope: 'person' },
          { id: device('d-shared') },
          { id: device('d-shared'), scope: 'id' },
        ]) {
          expectProblem(await small.call('POST', eraseUrl(customer), { ...admin, body }), 422, 'component_too_large');
        }
        expect(await snapshot()).toEqual(before);

        // One holder fewer, and the person fits.
        expect((await small.call('POST', nodePath(customer, '_delete'), { body: { schema: 'member', key: m('m-4') } })).status).toBe(204);
        const res = await small.call('POST', eraseUrl(customer), { ...admin, body: { id: cookie('c-m-1'), scope: 'person' } });
        expect([res.status, res.body]).toEqual([200, { nodes_deleted: 3, ids_removed: 0 }]);
        for (const key of keys) expect(await small.store.getNodeIds({ customerId: customer, schemaId: 'member', key: m(key) })).toBeUndefined();
      });
    });
  });

  // ------------------------------------------------------------------ logs
  describe('logs', () => {
    test('when secure IDs are written and read back in history, and IDs and a person are erased, then no log line holds a secure value, an erased value or a token secret', async () => {
      const customer = await customerWith();
      const { token } = await bearerOf(customer);
      await create(customer, m('m-log-1'), [secret(email('logged-never@example.com')), secret(cookie('c-log-erased'))], 'member', token);
      await create(customer, m('m-log-2'), [secret(cookie('c-log-person'))]);
      expect((await getHistory(customer, m('m-log-1'), { token })).status).toBe(200);
      expect((await erase(customer, { id: cookie('c-log-erased') }, token)).status).toBe(200);
      expect((await erase(customer, { id: cookie('c-log-person'), scope: 'person' }, token)).status).toBe(200);
      // A refused erase and a refused read too.
      expect((await erase(customer, { id: cookie('c-log-person'), scope: 'nope' }, token)).status).toBe(400);
      expect(
        (await app.call('GET', `/v1/${customer}/node/_history?schema=member&key_type=email&key_id=logged-never@example.com&count=0`, { token })).status,
      ).toBe(400);
      // The access lines are written when the responses finish: every answer of this file has its line.
      await untilAccessLogged(app, app.requestIds);

      mustNotBeLogged.add(ADMIN_TOKEN);
      const logged = app.logs.join('\n');
      expect(app.logs.length).toBeGreaterThan(0);
      // Every value this file marked (the ones above and those of the tests before), checked one by one.
      const found = [...mustNotBeLogged].filter((value) => logged.includes(value));
      expect(found).toEqual([]);
    });
  });
});
