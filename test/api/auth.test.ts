// Authentication rules of docs/contract.md, through the API: which token is accepted where, in which order the
// rules apply, and that a refused request changes nothing.
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { createNode, memberSchema, putSchema } from '../helpers/factories';
import {
  buildSearch,
  contactSchema,
  expectAuthenticationRequired,
  expectInvalidToken,
  expectProblem,
  issueLabelledToken,
  nodeIds,
  nodePath,
  type NodeOperation,
  revokeToken,
  searchPath,
  uniqueCustomer,
  unknownToken,
} from '../helpers/builders-auth';

interface Case {
  name: string;
  op: NodeOperation | '_search';
  body: object;
  ok: number;
}

const ALICE = 'alice.secure@example.com';
const BOB = 'bob.secure@example.com';
const CAROL = 'carol.secure@example.com';

const m = (id: string) => ({ type: 'member_id', id });
const device = (id: string) => ({ type: 'device', id });
const email = (id: string) => ({ type: 'email', id });

/** Requests that involve the secure `email` type in key, ids, set or where, or search from it. */
const secureCases: Case[] = [
  { name: 'a create whose key is secure', op: '_create', body: { schema: 'contact', key: email(CAROL) }, ok: 201 },
  { name: 'a create whose ids hold a secure ID', op: '_create', body: { schema: 'member', key: m('m-2'), ids: [email(CAROL)] }, ok: 201 },
  { name: 'an insert of a secure ID', op: '_insert', body: { schema: 'member', key: m('m-1'), ids: [email(CAROL)] }, ok: 201 },
  { name: 'an insert into a node keyed by a secure ID', op: '_insert', body: { schema: 'contact', key: email(BOB), ids: [device('d-9')] }, ok: 201 },
  { name: 'an update whose set is secure', op: '_update', body: { schema: 'member', key: m('m-1'), where: device('d-1'), set: email(CAROL) }, ok: 200 },
  { name: 'an update whose where is secure', op: '_update', body: { schema: 'member', key: m('m-1'), where: email(ALICE), set: device('d-9') }, ok: 200 },
  {
    name: 'an update of a node keyed by a secure ID',
    op: '_update',
    body: { schema: 'contact', key: email(BOB), where: device('d-2'), set: device('d-9') },
    ok: 200,
  },
  { name: 'an upsert whose set is secure', op: '_upsert', body: { schema: 'member', key: m('m-1'), where: device('d-none'), set: email(CAROL) }, ok: 200 },
  { name: 'an upsert whose where is secure', op: '_upsert', body: { schema: 'member', key: m('m-1'), where: email(ALICE), set: device('d-9') }, ok: 200 },
  { name: 'a delete whose where is secure', op: '_delete', body: { schema: 'member', key: m('m-1'), where: email(ALICE) }, ok: 204 },
  { name: 'a delete of a node keyed by a secure ID', op: '_delete', body: { schema: 'contact', key: email(BOB) }, ok: 204 },
  { name: 'a rekeying of a secure key', op: '_rekeying', body: { schema: 'contact', key: email(BOB), set: { id: CAROL } }, ok: 200 },
  { name: 'a search from a secure key', op: '_search', body: buildSearch({ schema: 'contact', key: email(BOB) }), ok: 200 },
  { name: 'a search from a secure where', op: '_search', body: buildSearch({ where: email(ALICE) }), ok: 200 },
];

/** Requests that involve only open types: they need no token at all. */
const openCases: Case[] = [
  { name: 'a create of open IDs', op: '_create', body: { schema: 'member', key: m('m-2'), ids: [device('d-2')] }, ok: 201 },
  { name: 'an insert of open IDs', op: '_insert', body: { schema: 'member', key: m('m-1'), ids: [device('d-9')] }, ok: 201 },
  { name: 'an update of open IDs', op: '_update', body: { schema: 'member', key: m('m-1'), where: device('d-1'), set: device('d-9') }, ok: 200 },
  { name: 'an upsert of open IDs', op: '_upsert', body: { schema: 'member', key: m('m-1'), where: device('d-none'), set: device('d-9') }, ok: 200 },
  { name: 'a rekeying of an open key (the node holds secure IDs)', op: '_rekeying', body: { schema: 'member', key: m('m-1'), set: { id: 'm-1b' } }, ok: 200 },
  { name: 'a delete of an open ID', op: '_delete', body: { schema: 'member', key: m('m-1'), where: device('d-1') }, ok: 204 },
  { name: 'a delete of a node with an open key', op: '_delete', body: { schema: 'member', key: m('m-3') }, ok: 204 },
  { name: 'a search from an open key', op: '_search', body: buildSearch({ schema: 'member', key: m('m-1') }), ok: 200 },
];

describe('authentication of node operations and search', () => {
  let app: TestApp;
  let customer: string;
  let own: { token: string; token_id: string };
  let ownMapi: { token: string; token_id: string };
  let foreign: { token: string; token_id: string };
  let revoked: string;

  const pathOf = (op: Case['op']) => (op === '_search' ? searchPath(customer) : nodePath(customer, op));
  const send = (c: Case, options: { token?: string; headers?: Record<string, string> } = {}) => app.call('POST', pathOf(c.op), { body: c.body, ...options });

  /** Everything the cases above could change. */
  const snapshot = async () => ({
    m1: await nodeIds(app, customer, 'member', m('m-1')),
    m1b: await nodeIds(app, customer, 'member', m('m-1b')),
    m2: await nodeIds(app, customer, 'member', m('m-2')),
    m3: await nodeIds(app, customer, 'member', m('m-3')),
    bob: await nodeIds(app, customer, 'contact', email(BOB)),
    carol: await nodeIds(app, customer, 'contact', email(CAROL)),
  });

  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  beforeEach(async () => {
    customer = uniqueCustomer('auth');
    await putSchema(app, customer, 'member', memberSchema);
    await putSchema(app, customer, 'contact', contactSchema);
    await createNode(app, customer, { schema: 'member', key: m('m-1'), ids: [device('d-1'), email(ALICE)] }, ADMIN_TOKEN);
    await createNode(app, customer, { schema: 'member', key: m('m-3'), ids: [device('d-3')] });
    await createNode(app, customer, { schema: 'contact', key: email(BOB), ids: [device('d-2')] }, ADMIN_TOKEN);
    own = await issueLabelledToken(app, customer, 'bearer');
    ownMapi = await issueLabelledToken(app, customer, 'mapi');
    const other = uniqueCustomer('auth-other');
    foreign = await issueLabelledToken(app, other, 'bearer');
    const gone = await issueLabelledToken(app, customer, 'bearer');
    await revokeToken(app, customer, gone.token_id);
    revoked = gone.token;
  });

  describe('when a secure type is involved', () => {
    test.each(secureCases)('when $name is sent without a token, then 401 authentication_required and nothing changes', async (c) => {
      const before = await snapshot();
      const res = await send(c);
      expectAuthenticationRequired(res);
      expect(await snapshot()).toEqual(before);
    });

    test.each(secureCases)("when $name is sent with the customer's bearer token, then it succeeds", async (c) => {
      const res = await send(c, { token: own.token });
      expect(res.status).toBe(c.ok);
    });

    test.each(secureCases)('when $name is sent with the administrator token, then it succeeds', async (c) => {
      const res = await send(c, { token: ADMIN_TOKEN });
      expect(res.status).toBe(c.ok);
    });

    test.each(secureCases)('when $name is sent with a revoked token, then 401 invalid_token (not authentication_required) and nothing changes', async (c) => {
      const before = await snapshot();
      expectInvalidToken(await send(c, { token: revoked }));
      expect(await snapshot()).toEqual(before);
    });

    test.each(secureCases)("when $name is sent with another customer's bearer token, then 403 forbidden and nothing changes", async (c) => {
      const before = await snapshot();
      expectProblem(await send(c, { token: foreign.token }), 403, 'forbidden');
      expect(await snapshot()).toEqual(before);
    });

    test.each(secureCases)("when $name is sent with the customer's mapi token as a bearer token, then 403 forbidden and nothing changes", async (c) => {
      const before = await snapshot();
      expectProblem(await send(c, { token: ownMapi.token }), 403, 'forbidden');
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('when only open types are involved', () => {
    test.each(openCases)('when $name is sent without a token, then it succeeds', async (c) => {
      const res = await send(c);
      expect(res.status).toBe(c.ok);
    });

    const malformed = [
      ['a Basic scheme', 'Basic dXNlcjpwYXNzd29yZA=='],
      ['"Bearer" alone', 'Bearer'],
      ['a token with bad characters', 'Bearer bad$token/with+chars=0123456789abcdef'],
      ['a token that is too short', 'Bearer abc123'],
      ['two tokens', `Bearer ${unknownToken()} ${unknownToken()}`],
    ] as const;
    const malformedCases = openCases.flatMap((c) => malformed.map(([what, header]) => ({ ...c, what, header })));

    test.each(malformedCases)('when $name carries $what, then 401 invalid_token and nothing changes', async (c) => {
      const before = await snapshot();
      expectInvalidToken(await send(c, { headers: { Authorization: c.header } }));
      expect(await snapshot()).toEqual(before);
    });

    test.each(openCases)('when $name carries a well-formed token the service never issued, then 401 invalid_token and nothing changes', async (c) => {
      const before = await snapshot();
      expectInvalidToken(await send(c, { token: unknownToken() }));
      expect(await snapshot()).toEqual(before);
    });

    test.each(openCases)('when $name carries a revoked token, then 401 invalid_token and nothing changes', async (c) => {
      const before = await snapshot();
      expectInvalidToken(await send(c, { token: revoked }));
      expect(await snapshot()).toEqual(before);
    });

    test.each(openCases)("when $name carries another customer's bearer token, then 403 forbidden and nothing changes", async (c) => {
      const before = await snapshot();
      expectProblem(await send(c, { token: foreign.token }), 403, 'forbidden');
      expect(await snapshot()).toEqual(before);
    });

    test.each(openCases)('when $name carries a mapi token as a bearer token, then 403 forbidden and nothing changes', async (c) => {
      const before = await snapshot();
      expectProblem(await send(c, { token: ownMapi.token }), 403, 'forbidden');
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('search visibility', () => {
    test('when a search from an open key has no token, then secure IDs are left out and total counts only the visible ones', async () => {
      const res = await app.call('POST', searchPath(customer), { body: buildSearch({ schema: 'member', key: m('m-1') }) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [device('d-1'), m('m-1')], total: 2 });
    });

    test("when the same search carries the customer's bearer token, then the secure IDs are included and counted", async () => {
      const res = await app.call('POST', searchPath(customer), { token: own.token, body: buildSearch({ schema: 'member', key: m('m-1') }) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [device('d-1'), email(ALICE), m('m-1')], total: 3 });
    });

    test('when the scheme is written in lower case ("bearer"), then the token is still accepted', async () => {
      const res = await app.call('POST', searchPath(customer), {
        headers: { Authorization: `bearer ${own.token}` },
        body: buildSearch({ where: email(ALICE) }),
      });
      expect(res.status).toBe(200);
      expect(res.body.results).toContainEqual(email(ALICE));
    });
  });

  describe('revocation', () => {
    test('when a working token is revoked, then the very next request with it is 401 invalid_token', async () => {
      const token = await issueLabelledToken(app, customer, 'bearer', 'to be revoked');
      const search = buildSearch({ where: email(ALICE) });
      const before = await app.call('POST', searchPath(customer), { token: token.token, body: search });
      expect(before.status).toBe(200);
      expect(before.body.results).toContainEqual(email(ALICE));

      await revokeToken(app, customer, token.token_id);

      expectInvalidToken(await app.call('POST', searchPath(customer), { token: token.token, body: search }));
      expectInvalidToken(await app.call('POST', nodePath(customer, '_create'), { token: token.token, body: { schema: 'member', key: m('m-after-revoke') } }));
      expect(await nodeIds(app, customer, 'member', m('m-after-revoke'))).toBeUndefined();
    });

    test('when one token is revoked, then another token of the same customer keeps working', async () => {
      const doomed = await issueLabelledToken(app, customer, 'bearer');
      await revokeToken(app, customer, doomed.token_id);
      const res = await app.call('POST', searchPath(customer), { token: own.token, body: buildSearch({ where: email(ALICE) }) });
      expect(res.status).toBe(200);
      expect(res.body.results).toContainEqual(email(ALICE));
    });
  });

  describe('the administrator token', () => {
    test('when the administrator works on several customers, then every operation succeeds for each of them', async () => {
      for (const c of [uniqueCustomer('admin-a'), uniqueCustomer('admin-b')]) {
        const call = (op: NodeOperation | '_search', body: object) =>
          app.call('POST', op === '_search' ? searchPath(c) : nodePath(c, op), { token: ADMIN_TOKEN, body });
        expect((await app.call('PUT', `/v1/${c}/schema/contact`, { token: ADMIN_TOKEN, body: contactSchema })).status).toBe(201);
        expect((await call('_create', { schema: 'contact', key: email(BOB), ids: [device('d-1')] })).status).toBe(201);
        expect((await call('_insert', { schema: 'contact', key: email(BOB), ids: [email(ALICE)] })).status).toBe(201);
        expect((await call('_update', { schema: 'contact', key: email(BOB), where: email(ALICE), set: email(CAROL) })).status).toBe(200);
        expect((await call('_upsert', { schema: 'contact', key: email(BOB), where: email(ALICE), set: email(ALICE) })).status).toBe(200);
        expect((await call('_rekeying', { schema: 'contact', key: email(BOB), set: { id: 'bob.new@example.com' } })).status).toBe(200);
        const found = await call('_search', buildSearch({ where: email(CAROL) }));
        expect(found.body).toEqual({ results: [device('d-1'), email(ALICE), email('bob.new@example.com'), email(CAROL)], total: 4 });
        expect((await call('_delete', { schema: 'contact', key: email('bob.new@example.com'), where: email(CAROL) })).status).toBe(204);
        expect((await call('_delete', { schema: 'contact', key: email('bob.new@example.com') })).status).toBe(204);
        expect(await nodeIds(app, c, 'contact', email('bob.new@example.com'))).toBeUndefined();
        expect((await app.call('POST', `/v1/${c}/token`, { token: ADMIN_TOKEN, body: { kind: 'bearer' } })).status).toBe(201);
      }
    });
  });
});
