// The six node operations through HTTP on a real SQLite store: success statuses and bodies, what is stored
// afterwards, and every error row that applies to them. A refused request must leave the store as it was.
import { startApp, type TestApp } from '../helpers/app';
import {
  buildDelete,
  buildInsert,
  buildRekey,
  buildSearch,
  buildUpdate,
  errorPaths,
  expectProblem,
  id,
  searchIds,
  storedIds,
  uniqueCustomer,
} from '../helpers/builders-nodesearch';
import { buildNode, createNode, issueToken, putSchema } from '../helpers/factories';

const KEY = id('member_id', 'm-1');

describe('node operations', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  /** A customer with the member schema and the node m-1 holding device d-1 (and its key). */
  async function customerWithNode(extraIds: Array<{ type: string; id: string }> = []): Promise<string> {
    const customer = uniqueCustomer('node');
    await putSchema(app, customer);
    await createNode(app, customer, buildNode({ ids: [id('device', 'd-1'), ...extraIds] }));
    return customer;
  }

  const post = (customer: string, op: string, body: unknown, token?: string) =>
    app.call('POST', `/v1/${customer}/node/_${op}`, { body, ...(token ? { token } : {}) });

  describe('create', () => {
    test('when the node is new, then 201 {} and the node holds its key and ids', async () => {
      const customer = uniqueCustomer('create');
      await putSchema(app, customer);
      const res = await post(customer, 'create', buildNode({ ids: [id('device', 'd-1'), id('cookie', 'c-1')] }));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({});
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(await storedIds(app, customer, KEY)).toEqual([id('cookie', 'c-1'), id('device', 'd-1'), KEY]);
    });

    test('when ids is omitted, then the node holds only its key', async () => {
      const customer = uniqueCustomer('create');
      await putSchema(app, customer);
      const res = await post(customer, 'create', { schema: 'member', key: KEY });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({});
      expect(await storedIds(app, customer, KEY)).toEqual([KEY]);
    });

    test('when ids lists the key itself, then 201 and the key is held once', async () => {
      const customer = uniqueCustomer('create');
      await putSchema(app, customer);
      const res = await post(customer, 'create', buildNode({ ids: [KEY, id('device', 'd-1')] }));
      expect(res.status).toBe(201);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the created node shares an ID with another node, then a search from one finds the other', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'create', buildNode({ key: id('member_id', 'm-2'), ids: [id('device', 'd-1')] }));
      expect(res.status).toBe(201);
      const found = await searchIds(app, customer, buildSearch());
      expect(found.results).toEqual([id('device', 'd-1'), KEY, id('member_id', 'm-2')]);
    });

    test('when the key exists already, then 409 node_exists and the node is unchanged', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'create', buildNode({ ids: [id('cookie', 'c-9')] }));
      expectProblem(res, 409, 'node_exists');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the same key exists for another customer, then 201: customers do not share keys', async () => {
      const other = await customerWithNode();
      const customer = uniqueCustomer('create');
      await putSchema(app, customer);
      const res = await post(customer, 'create', buildNode({ ids: [id('cookie', 'c-1')] }));
      expect(res.status).toBe(201);
      expect(await storedIds(app, customer, KEY)).toEqual([id('cookie', 'c-1'), KEY]);
      expect(await storedIds(app, other, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the schema does not exist, then 404 schema_not_found and nothing is stored', async () => {
      const customer = uniqueCustomer('create');
      await putSchema(app, customer);
      const res = await post(customer, 'create', buildNode({ schema: 'nosuch' }));
      expectProblem(res, 404, 'schema_not_found');
      expect(await storedIds(app, customer, KEY, 'nosuch')).toBeUndefined();
    });

    test('when the key type is not declared by the schema, then 400 key_type_not_in_schema pointing at /body/key/type', async () => {
      const customer = uniqueCustomer('create');
      await putSchema(app, customer);
      const key = id('phone', 'p-1');
      const res = await post(customer, 'create', buildNode({ key }));
      expectProblem(res, 400, 'key_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/key/type']);
      expect(await storedIds(app, customer, key)).toBeUndefined();
    });

    test('when an id type is not declared by the schema, then 400 id_type_not_in_schema pointing at that entry and nothing is stored', async () => {
      const customer = uniqueCustomer('create');
      await putSchema(app, customer);
      const res = await post(customer, 'create', buildNode({ ids: [id('device', 'd-1'), id('phone', 'p-1')] }));
      expectProblem(res, 400, 'id_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/ids/1/type']);
      expect(await storedIds(app, customer, KEY)).toBeUndefined();
    });

    test('when several id types are undeclared, then each offending entry is listed', async () => {
      const customer = uniqueCustomer('create');
      await putSchema(app, customer);
      const res = await post(customer, 'create', buildNode({ ids: [id('phone', 'p-1'), id('device', 'd-1'), id('fax', 'f-1')] }));
      expectProblem(res, 400, 'id_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/ids/0/type', '/body/ids/2/type']);
    });

    test('when ids lists the same ID twice, then 400 validation_failed naming the repeat and nothing is stored', async () => {
      const customer = uniqueCustomer('create');
      await putSchema(app, customer);
      const res = await post(customer, 'create', buildNode({ ids: [id('device', 'd-1'), id('cookie', 'c-1'), id('device', 'd-1')] }));
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body/ids/2']);
      expect(await storedIds(app, customer, KEY)).toBeUndefined();
    });
  });

  describe('insert', () => {
    test('when the IDs are new to the node, then 201 {} and they are added', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'insert', buildInsert({ ids: [id('cookie', 'c-1'), id('device', 'd-2')] }));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({});
      expect(await storedIds(app, customer, KEY)).toEqual([id('cookie', 'c-1'), id('device', 'd-1'), id('device', 'd-2'), KEY]);
    });

    test('when an inserted ID is held by another node, then 201 and the two nodes become linked', async () => {
      const customer = await customerWithNode();
      await createNode(app, customer, buildNode({ key: id('member_id', 'm-2'), ids: [id('cookie', 'c-7')] }));
      const res = await post(customer, 'insert', buildInsert({ ids: [id('cookie', 'c-7')] }));
      expect(res.status).toBe(201);
      const found = await searchIds(app, customer, buildSearch());
      expect(found.results).toEqual([id('cookie', 'c-7'), id('device', 'd-1'), KEY, id('member_id', 'm-2')]);
    });

    test('when one of the IDs is held already, then 409 id_exists naming it and none of them is added', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'insert', buildInsert({ ids: [id('cookie', 'c-1'), id('device', 'd-1'), id('device', 'd-3')] }));
      expectProblem(res, 409, 'id_exists');
      expect(res.body.detail).toContain('device=d-1');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the key itself is inserted, then 409 id_exists and nothing changes', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'insert', buildInsert({ ids: [KEY] }));
      expectProblem(res, 409, 'id_exists');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the node does not exist, then 404 node_not_found and no node appears', async () => {
      const customer = await customerWithNode();
      const key = id('member_id', 'm-404');
      const res = await post(customer, 'insert', buildInsert({ key }));
      expectProblem(res, 404, 'node_not_found');
      expect(await storedIds(app, customer, key)).toBeUndefined();
    });

    test('when the schema does not exist, then 404 schema_not_found', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'insert', buildInsert({ schema: 'nosuch' }));
      expectProblem(res, 404, 'schema_not_found');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the key type is not declared by the schema, then 400 key_type_not_in_schema', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'insert', buildInsert({ key: id('phone', 'p-1') }));
      expectProblem(res, 400, 'key_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/key/type']);
    });

    test('when an ID type is not declared by the schema, then 400 id_type_not_in_schema at /body/ids/1/type and nothing is added', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'insert', buildInsert({ ids: [id('cookie', 'c-1'), id('phone', 'p-1')] }));
      expectProblem(res, 400, 'id_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/ids/1/type']);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when ids lists the same ID twice, then 400 validation_failed and nothing is added', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'insert', buildInsert({ ids: [id('cookie', 'c-1'), id('cookie', 'c-1')] }));
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body/ids/1']);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });
  });

  describe('update', () => {
    test('when the node holds where, then 200 {} and where is replaced by set', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'update', buildUpdate());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-2'), KEY]);
    });

    test('when set has another type than where, then the held ID is replaced by one of the new type', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'update', buildUpdate({ set: id('cookie', 'c-1') }));
      expect(res.status).toBe(200);
      expect(await storedIds(app, customer, KEY)).toEqual([id('cookie', 'c-1'), KEY]);
    });

    test('when the replaced ID linked two nodes, then they are no longer linked', async () => {
      const customer = await customerWithNode();
      await createNode(app, customer, buildNode({ key: id('member_id', 'm-2'), ids: [id('device', 'd-1')] }));
      const res = await post(customer, 'update', buildUpdate());
      expect(res.status).toBe(200);
      const found = await searchIds(app, customer, buildSearch());
      expect(found).toEqual({ results: [id('device', 'd-2'), KEY], total: 2 });
      expect(await storedIds(app, customer, id('member_id', 'm-2'))).toEqual([id('device', 'd-1'), id('member_id', 'm-2')]);
    });

    test('when the node does not hold where, then 200 {} and nothing changes', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'update', buildUpdate({ where: id('device', 'd-9') }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when set equals where, then 200 and nothing changes', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'update', buildUpdate({ set: id('device', 'd-1') }));
      expect(res.status).toBe(200);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the node already holds set, then 409 id_exists and nothing changes', async () => {
      const customer = await customerWithNode([id('device', 'd-2')]);
      const res = await post(customer, 'update', buildUpdate());
      expectProblem(res, 409, 'id_exists');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), id('device', 'd-2'), KEY]);
    });

    test('when set is the key, then 409 id_exists and nothing changes', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'update', buildUpdate({ set: KEY }));
      expectProblem(res, 409, 'id_exists');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when where is the key, then 409 key_id_immutable and the key stays', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'update', buildUpdate({ where: KEY, set: id('member_id', 'm-2') }));
      expectProblem(res, 409, 'key_id_immutable');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
      expect(await storedIds(app, customer, id('member_id', 'm-2'))).toBeUndefined();
    });

    test('when the node does not exist, then 404 node_not_found', async () => {
      const customer = await customerWithNode();
      const key = id('member_id', 'm-404');
      const res = await post(customer, 'update', buildUpdate({ key }));
      expectProblem(res, 404, 'node_not_found');
      expect(await storedIds(app, customer, key)).toBeUndefined();
    });

    test('when the schema does not exist, then 404 schema_not_found', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'update', buildUpdate({ schema: 'nosuch' }));
      expectProblem(res, 404, 'schema_not_found');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the key type is not declared by the schema, then 400 key_type_not_in_schema', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'update', buildUpdate({ key: id('phone', 'p-1') }));
      expectProblem(res, 400, 'key_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/key/type']);
    });

    test('when set has a type the schema does not declare, then 400 id_type_not_in_schema at /body/set/type and nothing changes', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'update', buildUpdate({ set: id('phone', 'p-1') }));
      expectProblem(res, 400, 'id_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/set/type']);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when where has a type the schema does not declare, then 400 id_type_not_in_schema at /body/where/type', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'update', buildUpdate({ where: id('phone', 'p-1') }));
      expectProblem(res, 400, 'id_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/where/type']);
    });
  });

  describe('upsert', () => {
    test('when the node holds where, then 200 {} and where is replaced by set', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'upsert', buildUpdate());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-2'), KEY]);
    });

    test('when the node does not hold where, then 200 {} and set is added', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'upsert', buildUpdate({ where: id('device', 'd-9') }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), id('device', 'd-2'), KEY]);
    });

    test('when the node does not hold where but holds set already, then 200 and nothing changes', async () => {
      const customer = await customerWithNode([id('device', 'd-2')]);
      const res = await post(customer, 'upsert', buildUpdate({ where: id('device', 'd-9') }));
      expect(res.status).toBe(200);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), id('device', 'd-2'), KEY]);
    });

    test('when the node holds where and set, then 409 id_exists and nothing changes', async () => {
      const customer = await customerWithNode([id('device', 'd-2')]);
      const res = await post(customer, 'upsert', buildUpdate());
      expectProblem(res, 409, 'id_exists');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), id('device', 'd-2'), KEY]);
    });

    test('when where is the key, then 409 key_id_immutable and nothing changes', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'upsert', buildUpdate({ where: KEY }));
      expectProblem(res, 409, 'key_id_immutable');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the node does not exist, then 404 node_not_found and no node appears', async () => {
      const customer = await customerWithNode();
      const key = id('member_id', 'm-404');
      const res = await post(customer, 'upsert', buildUpdate({ key }));
      expectProblem(res, 404, 'node_not_found');
      expect(await storedIds(app, customer, key)).toBeUndefined();
    });

    test('when the schema does not exist, then 404 schema_not_found', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'upsert', buildUpdate({ schema: 'nosuch' }));
      expectProblem(res, 404, 'schema_not_found');
    });

    test('when set has a type the schema does not declare, then 400 id_type_not_in_schema and nothing is added', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'upsert', buildUpdate({ where: id('device', 'd-9'), set: id('phone', 'p-1') }));
      expectProblem(res, 400, 'id_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/set/type']);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the key type is not declared by the schema, then 400 key_type_not_in_schema', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'upsert', buildUpdate({ key: id('phone', 'p-1') }));
      expectProblem(res, 400, 'key_type_not_in_schema');
    });
  });

  describe('rekeying', () => {
    test('when the new key is free, then 200 {} and the node answers to the new key only, holding it instead of the old one', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'rekeying', buildRekey());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect(await storedIds(app, customer, KEY)).toBeUndefined();
      expect(await storedIds(app, customer, id('member_id', 'm-2'))).toEqual([id('device', 'd-1'), id('member_id', 'm-2')]);
    });

    test('when the node was rekeyed, then a search by the old key finds nothing and one by the new key finds the node', async () => {
      const customer = await customerWithNode();
      expect((await post(customer, 'rekeying', buildRekey())).status).toBe(200);
      expect(await searchIds(app, customer, buildSearch())).toEqual({ results: [], total: 0 });
      const found = await searchIds(app, customer, buildSearch({ schema: 'member', key: id('member_id', 'm-2') }));
      expect(found).toEqual({ results: [id('device', 'd-1'), id('member_id', 'm-2')], total: 2 });
    });

    test('when set.id is the current key id, then 200 {} and nothing changes', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'rekeying', buildRekey({ set: { id: 'm-1' } }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the node already holds the new key id as an ordinary ID, then 200 and it is held once, as the key', async () => {
      const customer = await customerWithNode([id('member_id', 'm-2')]);
      const res = await post(customer, 'rekeying', buildRekey());
      expect(res.status).toBe(200);
      expect(await storedIds(app, customer, id('member_id', 'm-2'))).toEqual([id('device', 'd-1'), id('member_id', 'm-2')]);
      expect(await storedIds(app, customer, KEY)).toBeUndefined();
    });

    test('when the old key id is also held by another node, then that node keeps it and the link through it ends', async () => {
      const customer = await customerWithNode();
      const other = id('member_id', 'm-3');
      await createNode(app, customer, buildNode({ key: other, ids: [KEY] }));
      const res = await post(customer, 'rekeying', buildRekey());
      expect(res.status).toBe(200);
      expect(await storedIds(app, customer, other)).toEqual([KEY, other]);
      const found = await searchIds(app, customer, buildSearch({ schema: 'member', key: other }));
      expect(found).toEqual({ results: [KEY, other], total: 2 });
    });

    test('when the new key is the key of another node, then 409 node_exists and both nodes are unchanged', async () => {
      const customer = await customerWithNode();
      await createNode(app, customer, buildNode({ key: id('member_id', 'm-2'), ids: [id('cookie', 'c-2')] }));
      const res = await post(customer, 'rekeying', buildRekey());
      expectProblem(res, 409, 'node_exists');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
      expect(await storedIds(app, customer, id('member_id', 'm-2'))).toEqual([id('cookie', 'c-2'), id('member_id', 'm-2')]);
    });

    test('when the node does not exist, then 404 node_not_found and no node appears under the new key', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'rekeying', buildRekey({ key: id('member_id', 'm-404') }));
      expectProblem(res, 404, 'node_not_found');
      expect(await storedIds(app, customer, id('member_id', 'm-2'))).toBeUndefined();
    });

    test('when the schema does not exist, then 404 schema_not_found', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'rekeying', buildRekey({ schema: 'nosuch' }));
      expectProblem(res, 404, 'schema_not_found');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the key type is not declared by the schema, then 400 key_type_not_in_schema', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'rekeying', buildRekey({ key: id('phone', 'p-1') }));
      expectProblem(res, 400, 'key_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/key/type']);
    });
  });

  describe('delete', () => {
    test('when where is held, then 204 with no body and the ID is gone from the node', async () => {
      const customer = await customerWithNode([id('cookie', 'c-1')]);
      const res = await post(customer, 'delete', buildDelete({ where: id('device', 'd-1') }));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await storedIds(app, customer, KEY)).toEqual([id('cookie', 'c-1'), KEY]);
    });

    test('when the removed ID linked two nodes, then a search no longer crosses to the other node', async () => {
      const customer = await customerWithNode();
      await createNode(app, customer, buildNode({ key: id('member_id', 'm-2'), ids: [id('device', 'd-1')] }));
      const res = await post(customer, 'delete', buildDelete({ where: id('device', 'd-1') }));
      expect(res.status).toBe(204);
      expect(await searchIds(app, customer, buildSearch())).toEqual({ results: [KEY], total: 1 });
    });

    test('when where is not held, then 204 and nothing changes', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'delete', buildDelete({ where: id('device', 'd-9') }));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when where is the key, then 409 key_id_immutable and nothing changes', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'delete', buildDelete({ where: KEY }));
      expectProblem(res, 409, 'key_id_immutable');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when where is absent, then 204 and the node and its links are gone', async () => {
      const customer = await customerWithNode();
      await createNode(app, customer, buildNode({ key: id('member_id', 'm-2'), ids: [id('device', 'd-1')] }));
      const res = await post(customer, 'delete', buildDelete());
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await storedIds(app, customer, KEY)).toBeUndefined();
      const fromOther = await searchIds(app, customer, buildSearch({ schema: 'member', key: id('member_id', 'm-2') }));
      expect(fromOther).toEqual({ results: [id('device', 'd-1'), id('member_id', 'm-2')], total: 2 });
    });

    test('when a deleted node is created again, then it starts empty but for its key and new ids', async () => {
      const customer = await customerWithNode([id('cookie', 'c-1')]);
      expect((await post(customer, 'delete', buildDelete())).status).toBe(204);
      const res = await post(customer, 'create', buildNode({ ids: [] }));
      expect(res.status).toBe(201);
      expect(await storedIds(app, customer, KEY)).toEqual([KEY]);
    });

    test('when the node does not exist, then 404 node_not_found', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'delete', buildDelete({ key: id('member_id', 'm-404') }));
      expectProblem(res, 404, 'node_not_found');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the node was deleted already, then a second delete is 404 node_not_found', async () => {
      const customer = await customerWithNode();
      expect((await post(customer, 'delete', buildDelete())).status).toBe(204);
      expectProblem(await post(customer, 'delete', buildDelete()), 404, 'node_not_found');
    });

    test('when the node does not exist and where is given, then 404 node_not_found', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'delete', buildDelete({ key: id('member_id', 'm-404'), where: id('device', 'd-1') }));
      expectProblem(res, 404, 'node_not_found');
    });

    test('when the schema does not exist, then 404 schema_not_found and the node stays', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'delete', buildDelete({ schema: 'nosuch' }));
      expectProblem(res, 404, 'schema_not_found');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the key type is not declared by the schema, then 400 key_type_not_in_schema', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'delete', buildDelete({ key: id('phone', 'p-1') }));
      expectProblem(res, 400, 'key_type_not_in_schema');
    });

    test('when where has a type the schema does not declare, then 400 id_type_not_in_schema at /body/where/type', async () => {
      const customer = await customerWithNode();
      const res = await post(customer, 'delete', buildDelete({ where: id('phone', 'p-1') }));
      expectProblem(res, 400, 'id_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/where/type']);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });
  });

  describe('secure ID types', () => {
    test('when create lists a secure ID without a token, then 401 authentication_required and nothing is stored', async () => {
      const customer = uniqueCustomer('secure');
      await putSchema(app, customer);
      const res = await post(customer, 'create', buildNode({ ids: [id('email', 'a@example.com')] }));
      expectProblem(res, 401, 'authentication_required');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(await storedIds(app, customer, KEY)).toBeUndefined();
    });

    test('when create lists a secure ID with a bearer token of the customer, then 201 and it is stored', async () => {
      const customer = uniqueCustomer('secure');
      await putSchema(app, customer);
      const { token } = await issueToken(app, customer);
      const res = await post(customer, 'create', buildNode({ ids: [id('email', 'a@example.com')] }), token);
      expect(res.status).toBe(201);
      expect(await storedIds(app, customer, KEY)).toEqual([id('email', 'a@example.com'), KEY]);
    });

    test('when the token belongs to another customer, then 403 forbidden and nothing is stored', async () => {
      const customer = uniqueCustomer('secure');
      await putSchema(app, customer);
      const other = uniqueCustomer('secure');
      const { token } = await issueToken(app, other);
      const res = await post(customer, 'create', buildNode({ ids: [id('email', 'a@example.com')] }), token);
      expectProblem(res, 403, 'forbidden');
      expect(await storedIds(app, customer, KEY)).toBeUndefined();
    });

    test('when update, upsert or delete names a secure ID without a token, then 401 and nothing changes', async () => {
      const customer = uniqueCustomer('secure');
      await putSchema(app, customer);
      const { token } = await issueToken(app, customer);
      await createNode(app, customer, buildNode({ ids: [id('email', 'a@example.com')] }), token);
      const email = id('email', 'a@example.com');
      expectProblem(await post(customer, 'update', buildUpdate({ where: email, set: id('email', 'b@example.com') })), 401, 'authentication_required');
      expectProblem(
        await post(customer, 'upsert', buildUpdate({ where: id('device', 'd-9'), set: id('email', 'b@example.com') })),
        401,
        'authentication_required',
      );
      expectProblem(await post(customer, 'delete', buildDelete({ where: email })), 401, 'authentication_required');
      expectProblem(await post(customer, 'insert', buildInsert({ ids: [id('email', 'c@example.com')] })), 401, 'authentication_required');
      expect(await storedIds(app, customer, KEY)).toEqual([email, KEY]);
    });

    test('when the key type is secure, then rekeying needs a token: 401 without (nothing changes), 200 with', async () => {
      const customer = uniqueCustomer('secure');
      await putSchema(app, customer);
      const { token } = await issueToken(app, customer);
      const key = id('email', 'a@example.com');
      await createNode(app, customer, buildNode({ key, ids: [] }), token);
      const refused = await post(customer, 'rekeying', buildRekey({ key, set: { id: 'b@example.com' } }));
      expectProblem(refused, 401, 'authentication_required');
      expect(await storedIds(app, customer, key)).toEqual([key]);
      const done = await post(customer, 'rekeying', buildRekey({ key, set: { id: 'b@example.com' } }), token);
      expect(done.status).toBe(200);
      expect(await storedIds(app, customer, id('email', 'b@example.com'))).toEqual([id('email', 'b@example.com')]);
    });

    test('when the token is unknown, then 401 invalid_token even though the operation needs none, and nothing is stored', async () => {
      const customer = uniqueCustomer('secure');
      await putSchema(app, customer);
      const res = await post(customer, 'create', buildNode(), 'idl_bearer_thisTokenWasNeverIssued0123456789');
      expectProblem(res, 401, 'invalid_token');
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(await storedIds(app, customer, KEY)).toBeUndefined();
    });

    test('when the schema check fails as well, then the schema error wins over the missing token', async () => {
      const customer = uniqueCustomer('secure');
      await putSchema(app, customer);
      const res = await post(customer, 'create', buildNode({ ids: [id('email', 'a@example.com'), id('phone', 'p-1')] }));
      expectProblem(res, 400, 'id_type_not_in_schema');
    });
  });
});
