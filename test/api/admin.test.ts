// Schema and token administration (docs/contract.md): what the administrator sees and what is refused.
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { createNode, memberSchema, putSchema } from '../helpers/factories';
import {
  buildSearch,
  expectAuthenticationRequired,
  expectInvalidToken,
  expectProblem,
  issueLabelledToken,
  nodeIds,
  searchPath,
  uniqueCustomer,
} from '../helpers/builders-auth';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

describe('administration', () => {
  let app: TestApp;
  let customer: string;

  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());
  beforeEach(() => {
    customer = uniqueCustomer('admin');
  });

  const schemaUrl = (schemaId: string, c = customer) => `/v1/${c}/schema/${schemaId}`;
  const admin = { token: ADMIN_TOKEN };

  describe('schemas', () => {
    test('when a schema is put for the first time, then 201 with the declared types and secure defaulting to false', async () => {
      const res = await app.call('PUT', schemaUrl('member'), { ...admin, body: { id_types: [{ type: 'member_id' }, { type: 'email', secure: true }] } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        schema_id: 'member',
        id_types: [
          { type: 'member_id', secure: false, links: true },
          { type: 'email', secure: true, links: true },
        ],
      });
    });

    test('when the same schema is put again, then 200 with the replacement', async () => {
      await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }] });
      const res = await app.call('PUT', schemaUrl('member'), { ...admin, body: { id_types: [{ type: 'member_id' }, { type: 'device' }] } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        schema_id: 'member',
        id_types: [
          { type: 'member_id', secure: false, links: true },
          { type: 'device', secure: false, links: true },
        ],
      });
      const read = await app.call('GET', schemaUrl('member'), admin);
      expect(read.body).toEqual(res.body);
    });

    test('when one schema is read, then it is returned as it was declared', async () => {
      await putSchema(app, customer, 'member', memberSchema);
      const res = await app.call('GET', schemaUrl('member'), admin);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        schema_id: 'member',
        id_types: [
          { type: 'member_id', secure: false, links: true },
          { type: 'device', secure: false, links: true },
          { type: 'cookie', secure: false, links: true },
          { type: 'email', secure: true, links: true },
        ],
      });
    });

    test('when the schemas are listed, then every schema of the customer is there, by schema_id', async () => {
      await putSchema(app, customer, 'zeta', { id_types: [{ type: 'device' }] });
      await putSchema(app, customer, 'alpha', { id_types: [{ type: 'member_id' }] });
      const res = await app.call('GET', `/v1/${customer}/schema`, admin);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { schema_id: 'alpha', id_types: [{ type: 'member_id', secure: false, links: true }] },
        { schema_id: 'zeta', id_types: [{ type: 'device', secure: false, links: true }] },
      ]);
    });

    test('when a customer has no schemas, then the list is empty', async () => {
      const res = await app.call('GET', `/v1/${customer}/schema`, admin);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });

    test('when an unknown schema is read, then 404 schema_not_found', async () => {
      expectProblem(await app.call('GET', schemaUrl('nothing'), admin), 404, 'schema_not_found');
    });

    test('when a schema without nodes is deleted, then 204 and it is gone', async () => {
      await putSchema(app, customer, 'member', memberSchema);
      const res = await app.call('DELETE', schemaUrl('member'), admin);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectProblem(await app.call('GET', schemaUrl('member'), admin), 404, 'schema_not_found');
    });

    test('when a schema that still has nodes is deleted, then 409 schema_in_use and the schema and node stay', async () => {
      await putSchema(app, customer, 'member', memberSchema);
      await createNode(app, customer, { schema: 'member', key: { type: 'member_id', id: 'm-1' } });
      expectProblem(await app.call('DELETE', schemaUrl('member'), admin), 409, 'schema_in_use');
      expect((await app.call('GET', schemaUrl('member'), admin)).status).toBe(200);
      expect(await nodeIds(app, customer, 'member', { type: 'member_id', id: 'm-1' })).toEqual([{ type: 'member_id', id: 'm-1' }]);
    });

    test('when the last node of a schema is deleted, then the schema can be deleted', async () => {
      await putSchema(app, customer, 'member', memberSchema);
      await createNode(app, customer, { schema: 'member', key: { type: 'member_id', id: 'm-1' } });
      const gone = await app.call('POST', `/v1/${customer}/node/_delete`, { body: { schema: 'member', key: { type: 'member_id', id: 'm-1' } } });
      expect(gone.status).toBe(204);
      expect((await app.call('DELETE', schemaUrl('member'), admin)).status).toBe(204);
    });

    test('when an unknown schema is deleted, then 404 schema_not_found', async () => {
      expectProblem(await app.call('DELETE', schemaUrl('nothing'), admin), 404, 'schema_not_found');
    });

    test('when a second schema declares a type with another secure flag, then 409 secure_flag_conflict and it is not created', async () => {
      await putSchema(app, customer, 'member', { id_types: [{ type: 'email', secure: true }] });
      expectProblem(await app.call('PUT', schemaUrl('newsletter'), { ...admin, body: { id_types: [{ type: 'email' }] } }), 409, 'secure_flag_conflict');
      expectProblem(await app.call('GET', schemaUrl('newsletter'), admin), 404, 'schema_not_found');
    });

    test('when a replacement changes a flag that another schema of the customer also declares, then 409 secure_flag_conflict and nothing changes', async () => {
      await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'email', secure: true }] });
      await putSchema(app, customer, 'contact', { id_types: [{ type: 'email', secure: true }] });
      const res = await app.call('PUT', schemaUrl('contact'), { ...admin, body: { id_types: [{ type: 'email', secure: false }] } });
      expectProblem(res, 409, 'secure_flag_conflict');
      expect((await app.call('GET', schemaUrl('contact'), admin)).body).toEqual({
        schema_id: 'contact',
        id_types: [{ type: 'email', secure: true, links: true }],
      });
    });

    test('when a second schema declares the type with the same flag, then it is created', async () => {
      await putSchema(app, customer, 'member', { id_types: [{ type: 'email', secure: true }] });
      const res = await app.call('PUT', schemaUrl('newsletter'), { ...admin, body: { id_types: [{ type: 'email', secure: true }] } });
      expect(res.status).toBe(201);
    });

    test('when another customer declares the same type with the other flag, then both customers keep their own flag', async () => {
      const other = uniqueCustomer('admin-other');
      await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'email', secure: true }] });
      const res = await app.call('PUT', schemaUrl('member', other), { ...admin, body: { id_types: [{ type: 'member_id' }, { type: 'email' }] } });
      expect(res.status).toBe(201);
      expect(res.body.id_types).toContainEqual({ type: 'email', secure: false, links: true });
      expect((await app.call('GET', schemaUrl('member'), admin)).body.id_types).toContainEqual({ type: 'email', secure: true, links: true });

      // The flags act: the other customer's e-mail is found without a token, this customer's is not.
      const key = { type: 'member_id', id: 'm-1' };
      const mail = { type: 'email', id: 'same.person@example.com' };
      await createNode(app, customer, { schema: 'member', key, ids: [mail] }, ADMIN_TOKEN);
      await createNode(app, other, { schema: 'member', key, ids: [mail] });
      expectAuthenticationRequired(await app.call('POST', searchPath(customer), { body: buildSearch({ where: mail }) }));
      const open = await app.call('POST', searchPath(other), { body: buildSearch({ where: mail }) });
      expect(open.body).toEqual({ results: [mail, key], total: 2 });
    });

    test('when a replacement drops a type that nodes still hold, then 409 schema_in_use and the schema is unchanged', async () => {
      await putSchema(app, customer, 'member', memberSchema);
      await createNode(app, customer, { schema: 'member', key: { type: 'member_id', id: 'm-1' }, ids: [{ type: 'device', id: 'd-1' }] });
      const res = await app.call('PUT', schemaUrl('member'), { ...admin, body: { id_types: [{ type: 'member_id' }, { type: 'email', secure: true }] } });
      expectProblem(res, 409, 'schema_in_use');
      const read = await app.call('GET', schemaUrl('member'), admin);
      expect(read.body.id_types.map((t: { type: string }) => t.type)).toEqual(['member_id', 'device', 'cookie', 'email']);
      expect(await nodeIds(app, customer, 'member', { type: 'member_id', id: 'm-1' })).toContainEqual({ type: 'device', id: 'd-1' });
    });

    test('when a replacement drops a type no node holds, then 200 and the type is gone', async () => {
      await putSchema(app, customer, 'member', memberSchema);
      await createNode(app, customer, { schema: 'member', key: { type: 'member_id', id: 'm-1' }, ids: [{ type: 'device', id: 'd-1' }] });
      const res = await app.call('PUT', schemaUrl('member'), { ...admin, body: { id_types: [{ type: 'member_id' }, { type: 'device' }] } });
      expect(res.status).toBe(200);
      expect(res.body.id_types).toEqual([
        { type: 'member_id', secure: false, links: true },
        { type: 'device', secure: false, links: true },
      ]);
    });

    test('when id_types names a type twice, then 400 validation_failed pointing at the duplicate and nothing is created', async () => {
      const res = await app.call('PUT', schemaUrl('member'), {
        ...admin,
        body: { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'member_id', secure: true }] },
      });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([expect.objectContaining({ path: '/body/id_types/2/type' })]);
      expectProblem(await app.call('GET', schemaUrl('member'), admin), 404, 'schema_not_found');
    });

    test('when id_types is empty or has an unknown field, then 400 validation_failed', async () => {
      expectProblem(await app.call('PUT', schemaUrl('member'), { ...admin, body: { id_types: [] } }), 400, 'validation_failed');
      expectProblem(
        await app.call('PUT', schemaUrl('member'), { ...admin, body: { id_types: [{ type: 'member_id', hidden: true }] } }),
        400,
        'validation_failed',
      );
    });
  });

  describe('tokens', () => {
    test('when a token is issued without a label, then 201 with token_id, the secret, kind, label null and created_at', async () => {
      const res = await app.call('POST', `/v1/${customer}/token`, { ...admin, body: { kind: 'bearer' } });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['created_at', 'kind', 'label', 'token', 'token_id']);
      expect(res.body).toMatchObject({ kind: 'bearer', label: null });
      expect(res.body.token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(res.body.created_at).toMatch(ISO_DATE_TIME);
      expect(typeof res.body.token_id).toBe('string');
    });

    test('when a mapi token is issued with a label, then the label and kind are returned', async () => {
      const res = await app.call('POST', `/v1/${customer}/token`, { ...admin, body: { kind: 'mapi', label: 'mobile app, 2025' } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ kind: 'mapi', label: 'mobile app, 2025' });
    });

    test('when two tokens are issued, then their secrets and ids differ', async () => {
      const a = await issueLabelledToken(app, customer);
      const b = await issueLabelledToken(app, customer);
      expect(a.token).not.toBe(b.token);
      expect(a.token_id).not.toBe(b.token_id);
    });

    test('when an unknown kind is asked for, then 400 validation_failed', async () => {
      expectProblem(await app.call('POST', `/v1/${customer}/token`, { ...admin, body: { kind: 'root' } }), 400, 'validation_failed');
    });

    test('when the tokens are listed, then each is there, oldest first, without its secret or hash', async () => {
      const first = await issueLabelledToken(app, customer, 'bearer', 'first');
      const second = await issueLabelledToken(app, customer, 'mapi');
      const res = await app.call('GET', `/v1/${customer}/token`, admin);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { token_id: first.token_id, kind: 'bearer', label: 'first', created_at: first.created_at },
        { token_id: second.token_id, kind: 'mapi', label: null, created_at: second.created_at },
      ]);
      expect(res.text).not.toContain(first.token);
      expect(res.text).not.toContain(second.token);
      for (const t of res.body as object[]) expect(Object.keys(t).sort()).toEqual(['created_at', 'kind', 'label', 'token_id']);
    });

    test('when a token is revoked, then 204, it stops working and leaves the list', async () => {
      const token = await issueLabelledToken(app, customer);
      await putSchema(app, customer, 'member', memberSchema);
      const search = buildSearch({ where: { type: 'email', id: 'nobody@example.com' } });
      expect((await app.call('POST', searchPath(customer), { token: token.token, body: search })).status).toBe(200);

      const res = await app.call('DELETE', `/v1/${customer}/token/${token.token_id}`, admin);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');

      expectInvalidToken(await app.call('POST', searchPath(customer), { token: token.token, body: search }));
      expect((await app.call('GET', `/v1/${customer}/token`, admin)).body).toEqual([]);
    });

    test('when a token is revoked twice, then the second time is 404 not_found', async () => {
      const token = await issueLabelledToken(app, customer);
      expect((await app.call('DELETE', `/v1/${customer}/token/${token.token_id}`, admin)).status).toBe(204);
      expectProblem(await app.call('DELETE', `/v1/${customer}/token/${token.token_id}`, admin), 404, 'not_found');
    });

    test('when an unknown token id is revoked, then 404 not_found', async () => {
      expectProblem(await app.call('DELETE', `/v1/${customer}/token/tok_nothing`, admin), 404, 'not_found');
    });
  });

  describe('who may administer', () => {
    const endpoints = [
      { name: 'list schemas', method: 'GET', path: (c: string) => `/v1/${c}/schema` },
      { name: 'put a schema', method: 'PUT', path: (c: string) => `/v1/${c}/schema/fresh`, body: { id_types: [{ type: 'member_id' }] } },
      { name: 'read a schema', method: 'GET', path: (c: string) => `/v1/${c}/schema/member` },
      { name: 'delete a schema', method: 'DELETE', path: (c: string) => `/v1/${c}/schema/member` },
      { name: 'issue a token', method: 'POST', path: (c: string) => `/v1/${c}/token`, body: { kind: 'bearer' } },
      { name: 'list tokens', method: 'GET', path: (c: string) => `/v1/${c}/token` },
      { name: 'revoke a token', method: 'DELETE', path: (c: string) => `/v1/${c}/token/TOKEN_ID` },
    ] as const;

    let bearer: { token: string; token_id: string };
    let mapi: { token: string; token_id: string };
    const state = async () => ({
      schemas: (await app.call('GET', `/v1/${customer}/schema`, admin)).body,
      tokens: (await app.call('GET', `/v1/${customer}/token`, admin)).body,
    });
    const send = (e: (typeof endpoints)[number], options: { token?: string } = {}) =>
      app.call(e.method, e.path(customer).replace('TOKEN_ID', bearer.token_id), { ...('body' in e ? { body: e.body } : {}), ...options });

    beforeEach(async () => {
      await putSchema(app, customer, 'member', memberSchema);
      bearer = await issueLabelledToken(app, customer, 'bearer');
      mapi = await issueLabelledToken(app, customer, 'mapi');
    });

    test.each(endpoints)('when $name is asked without a token, then 401 authentication_required and nothing changes', async (e) => {
      const before = await state();
      expectAuthenticationRequired(await send(e));
      expect(await state()).toEqual(before);
    });

    test.each(endpoints)("when $name is asked with the customer's own bearer token, then 403 forbidden and nothing changes", async (e) => {
      const before = await state();
      expectProblem(await send(e, { token: bearer.token }), 403, 'forbidden');
      expect(await state()).toEqual(before);
    });

    test.each(endpoints)('when $name is asked with a mapi token, then 403 forbidden and nothing changes', async (e) => {
      const before = await state();
      expectProblem(await send(e, { token: mapi.token }), 403, 'forbidden');
      expect(await state()).toEqual(before);
    });

    test.each(endpoints)('when $name is asked with a wrong administrator token, then 401 invalid_token and nothing changes', async (e) => {
      const before = await state();
      expectInvalidToken(await send(e, { token: `${ADMIN_TOKEN}x` }));
      expect(await state()).toEqual(before);
    });

    test.each(endpoints)('when $name is asked with the administrator token, then it succeeds', async (e) => {
      const res = await send(e, admin);
      expect(res.status).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(300);
    });
  });
});
