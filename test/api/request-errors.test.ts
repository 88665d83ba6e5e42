// The request-level rows of the error table, on several endpoints: bodies that are not JSON, too large or of
// another media type, bodies and path parameters that break openapi.yaml, and the shape every problem has.
import http from 'node:http';
import request from 'supertest';
import { loadContract, operations } from '../../src/http/openapi';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import {
  buildDelete,
  buildInsert,
  buildRekey,
  buildSearch,
  buildUpdate,
  errorPaths,
  expectProblem,
  id,
  storedIds,
  uniqueCustomer,
} from '../helpers/builders-nodesearch';
import { contractProblems } from '../helpers/contract';
import { buildNode, createNode, issueToken, putSchema } from '../helpers/factories';

const KEY = id('member_id', 'm-1');

/** Every body-taking endpoint of the identity API, with a valid body for it. */
const ENDPOINTS: Array<{ name: string; path: string; body: object }> = [
  { name: 'search', path: '_search', body: buildSearch() },
  { name: 'create', path: 'node/_create', body: buildNode() },
  { name: 'insert', path: 'node/_insert', body: buildInsert() },
  { name: 'update', path: 'node/_update', body: buildUpdate() },
  { name: 'upsert', path: 'node/_upsert', body: buildUpdate() },
  { name: 'rekeying', path: 'node/_rekeying', body: buildRekey() },
  { name: 'delete', path: 'node/_delete', body: buildDelete() },
];

describe('request-level errors', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  /** A customer with the member schema and node m-1 holding device d-1. */
  async function customerWithNode(): Promise<string> {
    const customer = uniqueCustomer('reqerr');
    await putSchema(app, customer);
    await createNode(app, customer, buildNode());
    return customer;
  }

  /** Sends a raw body with the given content type and checks the answer against the contract. */
  async function raw(url: string, body: string, contentType = 'application/json', method: 'POST' | 'PUT' = 'POST') {
    const res = await request(app.baseUrl)[method === 'PUT' ? 'put' : 'post'](url).set('content-type', contentType).send(body);
    expect(contractProblems(method, url, res)).toEqual([]);
    return res;
  }

  describe('400 invalid_json', () => {
    test.each(ENDPOINTS)('when the $name body is malformed JSON, then 400 invalid_json and nothing changes', async ({ path }) => {
      const customer = await customerWithNode();
      const res = await raw(`/v1/${customer}/${path}`, '{"schema": "member", "key": {bad');
      expectProblem(res, 400, 'invalid_json');
      expect(res.body.errors).toBeUndefined();
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when valid JSON is followed by garbage, then 400 invalid_json', async () => {
      const customer = await customerWithNode();
      const res = await raw(`/v1/${customer}/node/_create`, `${JSON.stringify(buildNode({ key: id('member_id', 'm-2') }))} trailing`);
      expectProblem(res, 400, 'invalid_json');
      expect(await storedIds(app, customer, id('member_id', 'm-2'))).toBeUndefined();
    });

    test('when the body is malformed JSON on an admin endpoint, then 400 invalid_json as well', async () => {
      const res = await raw(`/v1/${uniqueCustomer()}/schema/member`, '{"id_types": [', 'application/json', 'PUT');
      expectProblem(res, 400, 'invalid_json');
    });
  });

  describe('400 validation_failed: unknown fields', () => {
    test('when a search body has unknown fields at every level, then each is listed with its path', async () => {
      const customer = await customerWithNode();
      const body = {
        foo: 1,
        limit: 10,
        match: {
          foo: 1,
          from: { schema: 'member', key: { ...KEY, foo: 1 }, where: { ...id('device', 'd-1'), foo: 1 }, foo: 1 },
          having: { type: 'device', foo: 1 },
        },
      };
      const res = await app.call('POST', `/v1/${customer}/_search`, { body });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res).sort()).toEqual(
        ['/body/foo', '/body/match/foo', '/body/match/from/foo', '/body/match/from/key/foo', '/body/match/from/where/foo', '/body/match/having/foo'].sort(),
      );
      for (const e of res.body.errors as Array<{ message: string }>) expect(e.message).toBe('is not an allowed field');
    });

    test('when match.from alone has an unknown field, then exactly /body/match/from/foo is reported', async () => {
      const customer = await customerWithNode();
      const res = await app.call('POST', `/v1/${customer}/_search`, { body: { match: { from: { schema: 'member', key: KEY, foo: 'x' } } } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ path: '/body/match/from/foo', message: 'is not an allowed field' }]);
    });

    test('when a create body has unknown fields at every level, then each is listed and nothing is stored', async () => {
      const customer = await customerWithNode();
      const key = id('member_id', 'm-2');
      const body = { ...buildNode({ key: { ...key, foo: 'x' } as typeof key }), ids: [{ ...id('device', 'd-2'), foo: 'x' }], foo: 'x' };
      const res = await app.call('POST', `/v1/${customer}/node/_create`, { body });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res).sort()).toEqual(['/body/foo', '/body/ids/0/foo', '/body/key/foo']);
      expect(await storedIds(app, customer, key)).toBeUndefined();
    });

    test('when an update body has unknown fields in set and where, then both are listed and nothing changes', async () => {
      const customer = await customerWithNode();
      const body = { ...buildUpdate(), set: { ...id('device', 'd-2'), foo: 1 }, where: { ...id('device', 'd-1'), bar: 1 } };
      const res = await app.call('POST', `/v1/${customer}/node/_update`, { body });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res).sort()).toEqual(['/body/set/foo', '/body/where/bar']);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when a rekeying set carries a type, then /body/set/type is not an allowed field and the key stays', async () => {
      const customer = await customerWithNode();
      const res = await app.call('POST', `/v1/${customer}/node/_rekeying`, { body: { ...buildRekey(), set: { type: 'member_id', id: 'm-2' } } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ path: '/body/set/type', message: 'is not an allowed field' }]);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when a delete where has an unknown field, then /body/where/foo and the node stays', async () => {
      const customer = await customerWithNode();
      const res = await app.call('POST', `/v1/${customer}/node/_delete`, { body: { ...buildDelete(), where: { ...id('device', 'd-1'), foo: true } } });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body/where/foo']);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when an insert body has an unknown field in the second ID, then /body/ids/1/foo and nothing is added', async () => {
      const customer = await customerWithNode();
      const res = await app.call('POST', `/v1/${customer}/node/_insert`, {
        body: buildInsert({ ids: [id('cookie', 'c-1'), { ...id('cookie', 'c-2'), foo: 1 } as never] }),
      });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body/ids/1/foo']);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });
  });

  describe('400 validation_failed: wrong types', () => {
    const cases: Array<{ name: string; path: string; body: object; errors: string[] }> = [
      { name: 'limit as a string', path: '_search', body: { ...buildSearch(), limit: '10' }, errors: ['/body/limit'] },
      { name: 'limit as a fraction', path: '_search', body: { ...buildSearch(), limit: 1.5 }, errors: ['/body/limit'] },
      {
        name: 'exclude as a string',
        path: '_search',
        body: buildSearch({ schema: 'member', key: KEY, exclude: 'yes' as never }),
        errors: ['/body/match/from/exclude'],
      },
      { name: 'match as an array', path: '_search', body: { match: [] }, errors: ['/body/match'] },
      { name: 'having.type as a number', path: '_search', body: buildSearch(undefined, { having: { type: 5 as never } }), errors: ['/body/match/having/type'] },
      { name: 'key as a string', path: 'node/_create', body: buildNode({ key: 'm-1' as never }), errors: ['/body/key'] },
      { name: 'ids as an object', path: 'node/_create', body: buildNode({ ids: { type: 'device', id: 'd-1' } as never }), errors: ['/body/ids'] },
      { name: 'key.id as a number', path: 'node/_insert', body: buildInsert({ key: { type: 'member_id', id: 1 as never } }), errors: ['/body/key/id'] },
      { name: 'schema as a number', path: 'node/_update', body: { ...buildUpdate(), schema: 7 }, errors: ['/body/schema'] },
      { name: 'set.id as null', path: 'node/_rekeying', body: { ...buildRekey(), set: { id: null } }, errors: ['/body/set/id'] },
      { name: 'where as a string', path: 'node/_delete', body: { ...buildDelete(), where: 'device:d-1' }, errors: ['/body/where'] },
      { name: 'a body that is an array', path: 'node/_create', body: [buildNode()], errors: ['/body'] },
    ];

    test.each(cases)('when a body has $name, then 400 validation_failed at that path and nothing changes', async ({ path, body, errors }) => {
      const customer = await customerWithNode();
      const res = await app.call('POST', `/v1/${customer}/${path}`, { body });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(errors);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the body is JSON null, then 400 validation_failed at /body', async () => {
      const customer = await customerWithNode();
      const res = await raw(`/v1/${customer}/_search`, 'null');
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body']);
    });
  });

  describe('400 validation_failed: missing fields and empty or over-long values', () => {
    const cases: Array<{ name: string; path: string; body: object; errors: string[] }> = [
      { name: 'no match', path: '_search', body: { limit: 5 }, errors: ['/body/match'] },
      { name: 'no match.from', path: '_search', body: { match: { step: 'ONE' } }, errors: ['/body/match/from'] },
      {
        name: 'a key without id',
        path: '_search',
        body: buildSearch({ schema: 'member', key: { type: 'member_id' } as never }),
        errors: ['/body/match/from/key/id'],
      },
      { name: 'an empty create body', path: 'node/_create', body: {}, errors: ['/body/key', '/body/schema'] },
      { name: 'an insert without ids', path: 'node/_insert', body: { schema: 'member', key: KEY }, errors: ['/body/ids'] },
      { name: 'an insert with no IDs in ids', path: 'node/_insert', body: buildInsert({ ids: [] }), errors: ['/body/ids'] },
      { name: 'an update without set and where', path: 'node/_update', body: { schema: 'member', key: KEY }, errors: ['/body/set', '/body/where'] },
      { name: 'an upsert whose where lacks type', path: 'node/_upsert', body: buildUpdate({ where: { id: 'd-1' } as never }), errors: ['/body/where/type'] },
      { name: 'a rekeying without set.id', path: 'node/_rekeying', body: { ...buildRekey(), set: {} }, errors: ['/body/set/id'] },
      { name: 'a delete without key', path: 'node/_delete', body: { schema: 'member' }, errors: ['/body/key'] },
      { name: 'an empty key.id', path: 'node/_create', body: buildNode({ key: id('member_id', '') }), errors: ['/body/key/id'] },
      { name: 'an empty key.type', path: 'node/_insert', body: buildInsert({ key: id('', 'm-1') }), errors: ['/body/key/type'] },
      { name: 'an empty schema', path: 'node/_delete', body: buildDelete({ schema: '' }), errors: ['/body/schema'] },
      { name: 'an empty where.id', path: '_search', body: buildSearch({ where: id('device', '') }), errors: ['/body/match/from/where/id'] },
      { name: 'an empty set.id', path: 'node/_rekeying', body: buildRekey({ set: { id: '' } }), errors: ['/body/set/id'] },
      { name: 'an empty ID in ids', path: 'node/_create', body: buildNode({ ids: [id('device', 'd-1'), id('device', '')] }), errors: ['/body/ids/1/id'] },
      { name: 'an ID value of 1025 characters', path: 'node/_update', body: buildUpdate({ set: id('device', 'x'.repeat(1025)) }), errors: ['/body/set/id'] },
      { name: 'a type with a space', path: 'node/_upsert', body: buildUpdate({ set: id('dev ice', 'x') }), errors: ['/body/set/type'] },
      {
        name: '1001 IDs',
        path: 'node/_insert',
        body: buildInsert({ ids: Array.from({ length: 1001 }, (_, i) => id('cookie', `c${i}`)) }),
        errors: ['/body/ids'],
      },
    ];

    test.each(cases)('when a body has $name, then 400 validation_failed listing it and nothing changes', async ({ path, body, errors }) => {
      const customer = await customerWithNode();
      const res = await app.call('POST', `/v1/${customer}/${path}`, { body });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res).sort()).toEqual(errors);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when a required field is missing, then its message says it is required', async () => {
      const res = await app.call('POST', `/v1/${uniqueCustomer()}/node/_insert`, { body: { schema: 'member', key: KEY } });
      expect(res.body.errors).toEqual([{ path: '/body/ids', message: 'is required' }]);
    });

    test('when an ID value is exactly 1024 characters, then it is accepted', async () => {
      const customer = await customerWithNode();
      const long = id('device', 'x'.repeat(1024));
      const res = await app.call('POST', `/v1/${customer}/node/_insert`, { body: buildInsert({ ids: [long] }) });
      expect(res.status).toBe(201);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), long, KEY]);
    });
  });

  describe('400 validation_failed: path parameters', () => {
    test.each(ENDPOINTS)('when the customer id on $name contains a space, then 400 at /path/customer_id', async ({ path, body }) => {
      const res = await app.call('POST', `/v1/bad%20customer/${path}`, { body });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/path/customer_id']);
    });

    test('when the customer id is 65 characters, then 400 at /path/customer_id and nothing is stored', async () => {
      const customer = 'c'.repeat(65);
      const res = await app.call('POST', `/v1/${customer}/node/_create`, { body: buildNode() });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/path/customer_id']);
      expect(await storedIds(app, customer, KEY)).toBeUndefined();
    });

    test('when the customer id is 64 characters, then it is accepted', async () => {
      const customer = 'c'.repeat(64);
      const res = await app.call('POST', `/v1/${customer}/_search`, { body: buildSearch({ where: id('device', 'd-1') }) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [], total: 0 });
    });

    test('when both the path and the body are wrong, then both problems are listed', async () => {
      const res = await app.call('POST', '/v1/bad%20customer/node/_create', { body: { ...buildNode(), foo: 1 } });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res).sort()).toEqual(['/body/foo', '/path/customer_id']);
    });

    test('when the schema id of an admin path is invalid, then 400 at /path/schema_id', async () => {
      const res = await app.call('PUT', `/v1/${uniqueCustomer()}/schema/bad%20schema`, { body: { id_types: [{ type: 'member_id' }] } });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toContain('/path/schema_id');
    });
  });

  describe('400 validation_failed: no body', () => {
    test.each(ENDPOINTS)('when $name is sent without a body, then 400 validation_failed at /body', async ({ path }) => {
      const customer = await customerWithNode();
      const url = `/v1/${customer}/${path}`;
      const res = await request(app.baseUrl).post(url);
      expect(contractProblems('POST', url, res)).toEqual([]);
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body']);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the JSON body is empty, then 400 validation_failed naming the required fields', async () => {
      const customer = await customerWithNode();
      const res = await raw(`/v1/${customer}/node/_delete`, '');
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res).sort()).toEqual(['/body/key', '/body/schema']);
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });
  });

  describe('415 unsupported_media_type', () => {
    test.each(ENDPOINTS)('when the $name body is text/plain, then 415 and nothing changes', async ({ path, body }) => {
      const customer = await customerWithNode();
      const res = await raw(`/v1/${customer}/${path}`, JSON.stringify(body), 'text/plain');
      expectProblem(res, 415, 'unsupported_media_type');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the body is form-encoded, then 415', async () => {
      const customer = await customerWithNode();
      const res = await raw(`/v1/${customer}/node/_delete`, 'schema=member&key=m-1', 'application/x-www-form-urlencoded');
      expectProblem(res, 415, 'unsupported_media_type');
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the JSON is declared in a charset other than UTF-8, then 415', async () => {
      const customer = await customerWithNode();
      const res = await raw(`/v1/${customer}/_search`, JSON.stringify(buildSearch()), 'application/json; charset=latin1');
      expectProblem(res, 415, 'unsupported_media_type');
    });

    test('when the JSON carries an explicit UTF-8 charset, then it is accepted', async () => {
      const customer = await customerWithNode();
      const res = await raw(`/v1/${customer}/_search`, JSON.stringify(buildSearch()), 'application/json; charset=utf-8');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [id('device', 'd-1'), KEY], total: 2 });
    });
  });

  describe('413 payload_too_large', () => {
    let small: TestApp;
    beforeAll(async () => {
      small = await startApp({ env: { BODY_LIMIT: '1kb' } });
    });
    afterAll(() => small.close());

    const padded = (bytes: number) => {
      const ids = Array.from({ length: Math.ceil(bytes / 40) }, (_, i) => id('cookie', `cookie-number-${String(i).padStart(8, '0')}`));
      return buildNode({ ids });
    };

    test('when a create body is 2 kB over a 1 kB limit, then 413 payload_too_large and nothing is stored', async () => {
      const customer = uniqueCustomer('big');
      await putSchema(small, customer);
      const body = padded(2048);
      expect(JSON.stringify(body).length).toBeGreaterThan(2000);
      const res = await small.call('POST', `/v1/${customer}/node/_create`, { body });
      expectProblem(res, 413, 'payload_too_large');
      expect(await storedIds(small, customer, KEY)).toBeUndefined();
    });

    test('when a search body is over the limit, then 413 payload_too_large', async () => {
      const customer = uniqueCustomer('big');
      const body = buildSearch({ schema: 'member', key: id('member_id', 'x'.repeat(1024)), where: id('device', 'y'.repeat(1024)) });
      expect(JSON.stringify(body).length).toBeGreaterThan(2048);
      const res = await small.call('POST', `/v1/${customer}/_search`, { body });
      expectProblem(res, 413, 'payload_too_large');
    });

    test('when a body is under the limit, then it is served normally', async () => {
      const customer = uniqueCustomer('big');
      await putSchema(small, customer);
      const body = padded(400);
      expect(JSON.stringify(body).length).toBeLessThan(1024);
      const res = await small.call('POST', `/v1/${customer}/node/_create`, { body });
      expect(res.status).toBe(201);
      expect(await storedIds(small, customer, KEY)).toHaveLength(body.ids.length + 1);
    });
  });

  describe('problem bodies and request ids', () => {
    test('when several kinds of error occur, then each is an RFC 9457 problem with every field and no internals', async () => {
      const customer = await customerWithNode();
      const answers = [
        await raw(`/v1/${customer}/node/_create`, '{bad'),
        await app.call('POST', `/v1/${customer}/node/_create`, { body: buildNode() }),
        await app.call('POST', `/v1/${customer}/node/_insert`, { body: buildInsert({ key: id('member_id', 'zzz') }) }),
        await app.call('POST', `/v1/${customer}/node/_insert`, { body: buildInsert({ ids: [id('device', 'd-1')] }) }),
        await app.call('POST', `/v1/${customer}/_search`, { body: { match: { from: {} } } }),
        await app.call('POST', `/v1/${customer}/_search`, { body: { match: { from: { schema: "member'; DROP TABLE nodes; --", key: KEY } } } }),
        await raw(`/v1/${customer}/_search`, 'x', 'text/plain'),
      ];
      expect(answers.map((r) => [r.status, r.body.code])).toEqual([
        [400, 'invalid_json'],
        [409, 'node_exists'],
        [404, 'node_not_found'],
        [409, 'id_exists'],
        [400, 'invalid_search'],
        [400, 'validation_failed'],
        [415, 'unsupported_media_type'],
      ]);
      for (const res of answers) {
        expectProblem(res, res.status, res.body.code as string);
        expect(Object.keys(res.body).sort()).toEqual(
          ['code', 'detail', 'request_id', 'status', 'title', 'type', ...(res.body.errors ? ['errors'] : [])].sort(),
        );
      }
      expect(await storedIds(app, customer, KEY)).toEqual([id('device', 'd-1'), KEY]);
    });

    test('when the request carries a sane X-Request-Id, then it is echoed in the header and the problem body', async () => {
      const res = await app.call('POST', `/v1/${uniqueCustomer()}/_search`, {
        body: { match: { from: {} } },
        headers: { 'X-Request-Id': 'client-req.42:abc_DEF' },
      });
      expectProblem(res, 400, 'invalid_search');
      expect(res.headers['x-request-id']).toBe('client-req.42:abc_DEF');
      expect(res.body.request_id).toBe('client-req.42:abc_DEF');
    });

    test('when the request carries a sane X-Request-Id on a success, then it is echoed too', async () => {
      const customer = await customerWithNode();
      const res = await app.call('POST', `/v1/${customer}/_search`, { body: buildSearch(), headers: { 'X-Request-Id': 'ok-1' } });
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toBe('ok-1');
    });

    test.each([
      ['300 characters', 'r'.repeat(300)],
      ['spaces and symbols', 'bad id <script>'],
    ])('when the X-Request-Id has %s, then a generated id replaces it', async (_label, offered) => {
      const res = await app.call('POST', `/v1/${uniqueCustomer()}/_search`, { body: { match: { from: {} } }, headers: { 'X-Request-Id': offered } });
      expectProblem(res, 400, 'invalid_search');
      const echoed = res.headers['x-request-id'] as string;
      expect(echoed).not.toBe(offered);
      expect(echoed).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      expect(res.body.request_id).toBe(echoed);
    });

    test('when no X-Request-Id is sent, then each response gets its own id', async () => {
      const a = await raw(`/v1/${uniqueCustomer()}/_search`, '{bad');
      const b = await raw(`/v1/${uniqueCustomer()}/_search`, '{bad');
      expect(a.headers['x-request-id']).toBeTruthy();
      expect(a.body.request_id).toBe(a.headers['x-request-id']);
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });
  });

  describe('paths are case-sensitive', () => {
    test('when a path differs from the interface only in case, then 404 not_found, and nothing runs', async () => {
      const customer = uniqueCustomer('case');
      await putSchema(app, customer);
      const { token } = await issueToken(app, customer, 'mapi');
      // The right spelling works, so the refusals below are about case alone.
      expect((await app.call('GET', '/v1/delivery?count=20&page=1', { headers: { 'X-SERVICE-MAPI-TOKEN': token } })).status).toBe(200);
      for (const url of ['/v1/Delivery?count=20&page=1', '/v1/DELIVERY/1', '/V1/delivery?count=20&page=1']) {
        const res = await app.call('GET', url, { headers: { 'X-SERVICE-MAPI-TOKEN': token } });
        expect([url, res.status, res.body.code]).toEqual([url, 404, 'not_found']);
      }
      const created = await app.call('POST', `/v1/${customer}/Node/_create`, { body: buildNode() });
      expect([created.status, created.body.code]).toEqual([404, 'not_found']);
      expect(await storedIds(app, customer, KEY)).toBeUndefined();
      const searched = await app.call('POST', `/v1/${customer}/_Search`, { body: buildSearch() });
      expect(searched.status).toBe(404);
    });
  });

  describe('the customer ids . and ..', () => {
    /**
     * Sends `path` byte for byte (supertest, like a browser, may resolve dot segments before sending), as the
     * administrator, so that nothing but the path can be refused.
     */
    function rawCall(method: string, path: string, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: unknown; text: string }> {
      const { port } = new URL(app.baseUrl);
      return new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method,
            path,
            headers: {
              authorization: `Bearer ${ADMIN_TOKEN}`,
              ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : undefined, text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    }

    /** Every spelling of `.` and `..` as a path segment: plain, and percent-encoded in either case, whole or in part. */
    const DOTS = ['.', '..', '%2e', '%2E', '%2e%2e', '%2E%2E', '%2E.', '.%2e', '%2e.'];
    /** Every operation of the contract under /v1/{customer_id}, its other path parameters filled in. */
    const CUSTOMER_OPERATIONS = [...operations(loadContract())]
      .filter(({ path }) => path.startsWith('/v1/{customer_id}/'))
      .map(({ path, method }) => ({ method: method.toUpperCase(), path: path.replace('{schema_id}', 'member').replace('{token_id}', 'tok-1') }));

    test('when the customer id is . or .. in any spelling, then every customer operation is 400 at /path/customer_id, saying it is reserved', async () => {
      expect(CUSTOMER_OPERATIONS.length).toBeGreaterThan(20);
      for (const dots of DOTS) {
        for (const { method, path } of CUSTOMER_OPERATIONS) {
          const url = path.replace('{customer_id}', dots);
          const res = await rawCall(method, url, method === 'GET' ? undefined : '{}');
          const problem = res.body as { code?: string; errors?: Array<{ path: string; message: string }> };
          expect([method, url, res.status, problem.code]).toEqual([method, url, 400, 'validation_failed']);
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(problem.errors).toContainEqual({ path: '/path/customer_id', message: 'is a reserved name; choose another' });
          expect(res.headers.link).toBeUndefined();
          expect(contractProblems(method, path.replace('{customer_id}', 'c'), res as unknown as request.Response)).toEqual([]);
        }
      }
    });

    test('when a node, a schema or a history page is asked for customer .., then nothing is stored and no paging link points elsewhere', async () => {
      for (const dots of ['..', '%2e%2e', '.']) {
        const schema = await rawCall('PUT', `/v1/${dots}/schema/member`, JSON.stringify({ id_types: [{ type: 'member_id' }] }));
        expect([schema.status, (schema.body as { code: string }).code]).toEqual([400, 'validation_failed']);
        const created = await rawCall('POST', `/v1/${dots}/node/_create`, JSON.stringify(buildNode()));
        expect([created.status, (created.body as { code: string }).code]).toEqual([400, 'validation_failed']);
        const history = await rawCall('GET', `/v1/${dots}/node/_history?schema=member&key_type=member_id&key_id=m-1&count=1&page=1`);
        expect([history.status, history.headers.link]).toEqual([400, undefined]);
      }
      for (const customer of ['.', '..']) {
        expect(await app.store.getSchema(customer, 'member')).toBeUndefined();
        expect(await storedIds(app, customer, KEY)).toBeUndefined();
      }
      // Names that merely hold dots are names like any other.
      const dotted = `...${uniqueCustomer('dots')}.`;
      await putSchema(app, dotted);
      await createNode(app, dotted, buildNode());
      expect(await storedIds(app, dotted, KEY)).toEqual([id('device', 'd-1'), KEY]);
      expect((await rawCall('GET', '/v1/.../schema/member')).status).toBe(404);
    });
  });

  test('when the customer id is the reserved name delivery, then 400 says it is reserved, not a bare "must NOT be valid"', async () => {
    for (const [method, url, body] of [
      ['POST', '/v1/delivery/node/_create', buildNode()],
      ['POST', '/v1/delivery/_search', buildSearch()],
    ] as const) {
      const res = await app.call(method, url, { body });
      expect([url, res.status, res.body.code, res.body.errors]).toEqual([
        url,
        400,
        'validation_failed',
        [{ path: '/path/customer_id', message: 'is a reserved name; choose another' }],
      ]);
    }
  });
});
