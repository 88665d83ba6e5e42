// Tenant isolation (docs/contract.md): nothing of one customer is visible to, or changed by, a request for another.
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { createNode, memberSchema, putSchema } from '../helpers/factories';
import {
  buildSearch,
  expectProblem,
  issueLabelledToken,
  linkedIds,
  nodeIds,
  nodePath,
  type NodeOperation,
  searchPath,
  uniqueCustomer,
} from '../helpers/builders-auth';

const m = (id: string) => ({ type: 'member_id', id });
const device = (id: string) => ({ type: 'device', id });
const email = (id: string) => ({ type: 'email', id });

const A_MAIL = 'a.private@example.com';

describe('tenant isolation', () => {
  let app: TestApp;
  let a: string;
  let b: string;
  let aToken: { token: string; token_id: string };
  let bToken: { token: string; token_id: string };

  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  /** A's data: member m-1 holds device d-shared (also held by A's m-2) and a secure e-mail. */
  beforeEach(async () => {
    a = uniqueCustomer('tenant-a');
    b = uniqueCustomer('tenant-b');
    await putSchema(app, a, 'member', memberSchema);
    await createNode(app, a, { schema: 'member', key: m('m-1'), ids: [device('d-shared'), email(A_MAIL)] }, ADMIN_TOKEN);
    await createNode(app, a, { schema: 'member', key: m('m-2'), ids: [device('d-shared'), device('d-a2')] });
    aToken = await issueLabelledToken(app, a, 'bearer', 'a-token');
    bToken = await issueLabelledToken(app, b, 'bearer', 'b-token');
  });

  const aState = async () => ({
    m1: await nodeIds(app, a, 'member', m('m-1')),
    m2: await nodeIds(app, a, 'member', m('m-2')),
    m1new: await nodeIds(app, a, 'member', m('m-1-new')),
  });
  const bState = async () => ({
    m1: await nodeIds(app, b, 'member', m('m-1')),
    m9: await nodeIds(app, b, 'member', m('m-9')),
    schemas: (await app.call('GET', `/v1/${b}/schema`, { token: ADMIN_TOKEN })).body,
  });

  /** Writes B might attempt against A's node m-1, with B's own token (so only the customer differs). */
  const writesOnAsKey: Array<{ name: string; op: NodeOperation; body: object }> = [
    { name: 'insert', op: '_insert', body: { schema: 'member', key: m('m-1'), ids: [device('d-from-b')] } },
    { name: 'update', op: '_update', body: { schema: 'member', key: m('m-1'), where: device('d-shared'), set: device('d-from-b') } },
    { name: 'upsert', op: '_upsert', body: { schema: 'member', key: m('m-1'), where: device('d-none'), set: device('d-from-b') } },
    { name: 'delete of an ID', op: '_delete', body: { schema: 'member', key: m('m-1'), where: device('d-shared') } },
    { name: 'delete of the node', op: '_delete', body: { schema: 'member', key: m('m-1') } },
    { name: 'rekeying', op: '_rekeying', body: { schema: 'member', key: m('m-1'), set: { id: 'm-1-new' } } },
  ];

  describe('reading', () => {
    test("when B searches A's key with the same schema name, then B gets no results", async () => {
      await putSchema(app, b, 'member', memberSchema);
      const res = await app.call('POST', searchPath(b), { token: bToken.token, body: buildSearch({ schema: 'member', key: m('m-1') }) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [], total: 0 });
    });

    test("when B searches by where for A's IDs, then B gets no results", async () => {
      for (const where of [device('d-shared'), email(A_MAIL), m('m-1')]) {
        const res = await app.call('POST', searchPath(b), { token: bToken.token, body: buildSearch({ where }) });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ results: [], total: 0 });
      }
    });

    test("when B has no schemas and searches A's schema and key, then 404 schema_not_found", async () => {
      const res = await app.call('POST', searchPath(b), { token: bToken.token, body: buildSearch({ schema: 'member', key: m('m-1') }) });
      expectProblem(res, 404, 'schema_not_found');
    });

    test('when both customers hold the same schema, key and IDs, then each search sees only its own node', async () => {
      await putSchema(app, b, 'member', memberSchema);
      await createNode(app, b, { schema: 'member', key: m('m-1'), ids: [device('d-shared'), device('d-b-only')] });

      const forB = await app.call('POST', searchPath(b), { token: bToken.token, body: buildSearch({ schema: 'member', key: m('m-1') }) });
      expect(forB.body).toEqual({ results: [device('d-b-only'), device('d-shared'), m('m-1')], total: 3 });

      const forA = await app.call('POST', searchPath(a), { token: aToken.token, body: buildSearch({ schema: 'member', key: m('m-1') }) });
      expect(forA.body).toEqual({
        results: [device('d-a2'), device('d-shared'), email(A_MAIL), m('m-1'), m('m-2')],
        total: 5,
      });
    });

    test("when B's and A's nodes share an ID value, then a search from B's node never reaches A's nodes", async () => {
      await putSchema(app, b, 'member', memberSchema);
      await createNode(app, b, { schema: 'member', key: m('m-b'), ids: [device('d-shared')] });
      const res = await app.call('POST', searchPath(b), { token: ADMIN_TOKEN, body: buildSearch({ where: device('d-shared') }) });
      expect(res.body).toEqual({ results: [device('d-shared'), m('m-b')], total: 2 });
    });

    test("when B's schemas are listed or read, then A's schemas are not there", async () => {
      await putSchema(app, b, 'other', { id_types: [{ type: 'device' }] });
      const list = await app.call('GET', `/v1/${b}/schema`, { token: ADMIN_TOKEN });
      expect(list.body).toEqual([{ schema_id: 'other', id_types: [{ type: 'device', secure: false, links: true }] }]);
      expectProblem(await app.call('GET', `/v1/${b}/schema/member`, { token: ADMIN_TOKEN }), 404, 'schema_not_found');
    });

    test("when B's tokens are listed, then A's tokens are not there", async () => {
      const res = await app.call('GET', `/v1/${b}/token`, { token: ADMIN_TOKEN });
      expect(res.status).toBe(200);
      expect(res.body.map((t: { token_id: string }) => t.token_id)).toEqual([bToken.token_id]);
      expect(res.text).not.toContain(aToken.token_id);
      expect(res.text).not.toContain('a-token');
    });
  });

  describe('writing', () => {
    test.each(writesOnAsKey)(
      "when B (with its own schema of the same name) sends a $name for A's key, then 404 node_not_found and A's node is unchanged",
      async (w) => {
        await putSchema(app, b, 'member', memberSchema);
        const before = await aState();
        expectProblem(await app.call('POST', nodePath(b, w.op), { token: bToken.token, body: w.body }), 404, 'node_not_found');
        expect(await aState()).toEqual(before);
        expect(await bState()).toMatchObject({ m1: undefined });
      },
    );

    test.each(writesOnAsKey)("when B (without any schema) sends a $name for A's key, then 404 schema_not_found and A's node is unchanged", async (w) => {
      const before = await aState();
      expectProblem(await app.call('POST', nodePath(b, w.op), { token: bToken.token, body: w.body }), 404, 'schema_not_found');
      expect(await aState()).toEqual(before);
    });

    test("when B creates a node with A's key, then it is B's own node and A's node is unchanged", async () => {
      await putSchema(app, b, 'member', memberSchema);
      const before = await aState();
      const res = await app.call('POST', nodePath(b, '_create'), { body: { schema: 'member', key: m('m-1'), ids: [device('b-private-device')] } });
      expect(res.status).toBe(201);
      expect(await aState()).toEqual(before);
      expect(await nodeIds(app, b, 'member', m('m-1'))).toEqual([device('b-private-device'), m('m-1')]);
    });

    test("when B deletes its own schema of the same name, then A's schema and nodes stay", async () => {
      await putSchema(app, b, 'member', memberSchema);
      expect((await app.call('DELETE', `/v1/${b}/schema/member`, { token: ADMIN_TOKEN })).status).toBe(204);
      expect((await app.call('GET', `/v1/${a}/schema/member`, { token: ADMIN_TOKEN })).status).toBe(200);
      expect(await linkedIds(app, a, 'member', m('m-1'))).toHaveLength(5);
    });

    test("when A's token is revoked through B's path, then 404 not_found and A's token keeps working", async () => {
      expectProblem(await app.call('DELETE', `/v1/${b}/token/${aToken.token_id}`, { token: ADMIN_TOKEN }), 404, 'not_found');
      const res = await app.call('POST', searchPath(a), { token: aToken.token, body: buildSearch({ where: email(A_MAIL) }) });
      expect(res.status).toBe(200);
      expect(res.body.results).toContainEqual(email(A_MAIL));
    });
  });

  describe("A's token on B's paths", () => {
    const onB: Array<{ name: string; op: NodeOperation | '_search'; body: object }> = [
      { name: 'create', op: '_create', body: { schema: 'member', key: m('m-9'), ids: [device('d-9')] } },
      { name: 'insert', op: '_insert', body: { schema: 'member', key: m('m-1'), ids: [device('d-9')] } },
      { name: 'update', op: '_update', body: { schema: 'member', key: m('m-1'), where: device('b-private-device'), set: device('d-9') } },
      { name: 'upsert', op: '_upsert', body: { schema: 'member', key: m('m-1'), where: device('d-none'), set: device('d-9') } },
      { name: 'rekeying', op: '_rekeying', body: { schema: 'member', key: m('m-1'), set: { id: 'm-9' } } },
      { name: 'delete', op: '_delete', body: { schema: 'member', key: m('m-1') } },
      { name: 'search', op: '_search', body: buildSearch({ schema: 'member', key: m('m-1') }) },
    ];

    test.each(onB)("when A's bearer token is used for a $name on B's path, then 403 forbidden and nothing of B changes", async (w) => {
      await putSchema(app, b, 'member', memberSchema);
      await createNode(app, b, { schema: 'member', key: m('m-1'), ids: [device('b-private-device')] });
      const before = await bState();
      const path = w.op === '_search' ? searchPath(b) : nodePath(b, w.op);
      const res = await app.call('POST', path, { token: aToken.token, body: w.body });
      expectProblem(res, 403, 'forbidden');
      expect(res.text).not.toContain('b-private-device');
      expect(await bState()).toEqual(before);
    });

    test("when A's bearer token is used on B's admin endpoints, then 403 forbidden", async () => {
      expectProblem(await app.call('GET', `/v1/${b}/token`, { token: aToken.token }), 403, 'forbidden');
      expectProblem(await app.call('PUT', `/v1/${b}/schema/member`, { token: aToken.token, body: memberSchema }), 403, 'forbidden');
      expect((await app.call('GET', `/v1/${b}/schema`, { token: ADMIN_TOKEN })).body).toEqual([]);
    });
  });

  describe('secure flags are per customer', () => {
    test("when B declares A's secure type as open, then B's values are open and A's stay protected", async () => {
      await putSchema(app, b, 'member', { id_types: [{ type: 'member_id' }, { type: 'email' }] });
      await createNode(app, b, { schema: 'member', key: m('m-1'), ids: [email('b.public@example.com')] });

      const forB = await app.call('POST', searchPath(b), { body: buildSearch({ schema: 'member', key: m('m-1') }) });
      expect(forB.body).toEqual({ results: [email('b.public@example.com'), m('m-1')], total: 2 });

      const forA = await app.call('POST', searchPath(a), { body: buildSearch({ schema: 'member', key: m('m-1') }) });
      expect(forA.body.results).not.toContainEqual(email(A_MAIL));
    });
  });
});
