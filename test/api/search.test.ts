// ID search through HTTP on a real SQLite store: start nodes, ONE and ALL, exclude, having, order,
// limit and total, the traversal bound, and what a caller without a token may see.
import { startApp, type TestApp } from '../helpers/app';
import { buildSearch, errorPaths, expectProblem, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { buildNode, createNode, issueToken, putSchema } from '../helpers/factories';

const A = id('member_id', 'a');
const B = id('member_id', 'b');
const C = id('member_id', 'c');
const D1 = id('device', 'd1');
const C1 = id('cookie', 'c1');

describe('search', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  const search = (customer: string, body: unknown, token?: string) => app.call('POST', `/v1/${customer}/_search`, { body, ...(token ? { token } : {}) });

  /**
   * The chain A – B – C: A holds device d1, B holds device d1 and cookie c1, C holds cookie c1.
   * Also a schema 'shop' (member_id, cookie) with no nodes.
   */
  async function chain(): Promise<string> {
    const customer = uniqueCustomer('search');
    await putSchema(app, customer);
    await putSchema(app, customer, 'shop', { id_types: [{ type: 'member_id' }, { type: 'cookie' }] });
    await createNode(app, customer, buildNode({ key: A, ids: [D1] }));
    await createNode(app, customer, buildNode({ key: B, ids: [D1, C1] }));
    await createNode(app, customer, buildNode({ key: C, ids: [C1] }));
    return customer;
  }

  describe('start nodes', () => {
    let customer: string;
    beforeAll(async () => {
      customer = await chain();
    });

    test('when schema and key name a node, then 200 with every ID linked to it, sorted, and total', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [C1, D1, A, B, C], total: 5 });
    });

    test('when where names an ID held by several nodes and no schema, then they all start the search', async () => {
      const res = await search(customer, buildSearch({ where: C1 }, { step: 'ONE', limit: 100 }));
      expect(res.status).toBe(200);
      // start B and C; ONE adds A through d1 of B
      expect(res.body).toEqual({ results: [C1, D1, A, B, C], total: 5 });
    });

    test('when where is given with exclude and no schema, then every node holding it is a start node and is left out', async () => {
      const res = await search(customer, buildSearch({ where: D1, exclude: true }, { step: 'ONE' }));
      expect(res.status).toBe(200);
      // start A and B are excluded; C remains
      expect(res.body).toEqual({ results: [C1, C], total: 2 });
    });

    test('when where is given with a schema, then only nodes of that schema holding it start the search', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', where: D1 }));
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(5);
      const inShop = await search(customer, buildSearch({ schema: 'shop', where: D1 }));
      expect(inShop.status).toBe(200);
      expect(inShop.body).toEqual({ results: [], total: 0 });
    });

    test('when where is given with a schema, then nodes of other schemas holding it do not start the search', async () => {
      const other = uniqueCustomer('search');
      await putSchema(app, other);
      await putSchema(app, other, 'shop', { id_types: [{ type: 'member_id' }, { type: 'cookie' }] });
      const S = id('member_id', 's');
      await createNode(app, other, buildNode({ key: A, ids: [D1] }));
      await createNode(app, other, buildNode({ key: B, ids: [D1, C1] }));
      await createNode(app, other, buildNode({ schema: 'shop', key: S, ids: [C1] }));
      // only S starts (excluded); B is its neighbour
      const inShop = await search(other, buildSearch({ schema: 'shop', where: C1, exclude: true }, { step: 'ONE' }));
      expect(inShop.body).toEqual({ results: [C1, D1, B], total: 3 });
      // B and S start (excluded); A is B's neighbour
      const anywhere = await search(other, buildSearch({ where: C1, exclude: true }, { step: 'ONE' }));
      expect(anywhere.body).toEqual({ results: [D1, A], total: 2 });
    });

    test('when key and where are both given and the keyed node holds where, then it is the start node', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: C, where: C1, exclude: true }, { step: 'ONE' }));
      expect(res.status).toBe(200);
      // only C starts (excluded); B is its neighbour
      expect(res.body).toEqual({ results: [C1, D1, B], total: 3 });
    });

    test('when key and where are both given and the keyed node does not hold where, then 200 with no results', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A, where: C1 }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [], total: 0 });
    });

    test('when no node has the key, then 200 {results: [], total: 0}', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: id('member_id', 'nobody') }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [], total: 0 });
    });

    test('when no node holds where, then 200 {results: [], total: 0}', async () => {
      const res = await search(customer, buildSearch({ where: id('device', 'nowhere') }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [], total: 0 });
    });

    test('when another customer holds the same IDs, then its nodes are never found', async () => {
      const other = uniqueCustomer('search');
      await putSchema(app, other);
      await createNode(app, other, buildNode({ key: id('member_id', 'x'), ids: [D1] }));
      const res = await search(customer, buildSearch({ schema: 'member', key: A }));
      expect(res.body).toEqual({ results: [C1, D1, A, B, C], total: 5 });
      const theirs = await search(other, buildSearch({ where: D1 }));
      expect(theirs.body).toEqual({ results: [D1, id('member_id', 'x')], total: 2 });
    });
  });

  describe('step, exclude and having', () => {
    let customer: string;
    beforeAll(async () => {
      customer = await chain();
    });

    test('when step is ONE from the end of the chain, then only the start node and its direct neighbour count', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }, { step: 'ONE' }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [C1, D1, A, B], total: 4 });
    });

    test('when step is ALL, then every node reachable through shared IDs counts', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }, { step: 'ALL' }));
      expect(res.body).toEqual({ results: [C1, D1, A, B, C], total: 5 });
    });

    test('when step is omitted, then it is ALL', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: C }));
      expect(res.body).toEqual({ results: [C1, D1, A, B, C], total: 5 });
    });

    test('when step is ONE from the middle, then both neighbours count', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: B }, { step: 'ONE' }));
      expect(res.body).toEqual({ results: [C1, D1, A, B, C], total: 5 });
    });

    test('when exclude is true, then the start node is left out but IDs other targets hold still appear', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A, exclude: true }));
      expect(res.status).toBe(200);
      // d1 is held by A and B: B is a target, so d1 stays; member_id a is only on A
      expect(res.body).toEqual({ results: [C1, D1, B, C], total: 4 });
    });

    test('when exclude is true with step ONE, then only the neighbours remain', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A, exclude: true }, { step: 'ONE' }));
      expect(res.body).toEqual({ results: [C1, D1, B], total: 3 });
    });

    test('when exclude is false, then the start node is included', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A, exclude: false }, { step: 'ONE' }));
      expect(res.body).toEqual({ results: [C1, D1, A, B], total: 4 });
    });

    test('when exclude is true and the node has no neighbours, then 200 with no results', async () => {
      const other = uniqueCustomer('search');
      await putSchema(app, other);
      await createNode(app, other, buildNode({ key: A, ids: [D1] }));
      const res = await search(other, buildSearch({ schema: 'member', key: A, exclude: true }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [], total: 0 });
    });

    test('when having.type is given, then only IDs of that type are returned and counted', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }, { having: { type: 'member_id' } }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [A, B, C], total: 3 });
    });

    test('when having.type matches nothing, then 200 with no results', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }, { having: { type: 'nothing_of_this' } }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [], total: 0 });
    });

    test('when having is empty, then nothing is filtered', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }, { having: {} }));
      expect(res.body.total).toBe(5);
    });
  });

  describe('order, limit and total', () => {
    test('when IDs were stored in any order, then results are sorted by type, then id in code-point order', async () => {
      const customer = uniqueCustomer('order');
      await putSchema(app, customer);
      const key = id('member_id', 'k');
      // U+FF5E sorts before U+1F600 by code point, after it by UTF-16 code unit
      const values = ['b', 'B', 'a', '10', '9', '\u{1F600}', '\uFF5E', 'é'];
      await createNode(app, customer, buildNode({ key, ids: values.map((v) => id('device', v)).concat([id('cookie', 'z'), id('cookie', 'Z')]) }));
      const res = await search(customer, buildSearch({ schema: 'member', key }));
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([
        id('cookie', 'Z'),
        id('cookie', 'z'),
        ...['10', '9', 'B', 'a', 'b', 'é', '\uFF5E', '\u{1F600}'].map((v) => id('device', v)),
        key,
      ]);
      expect(res.body.total).toBe(11);
    });

    test('when limit is smaller than the number of IDs, then the first limit IDs come back and total counts all', async () => {
      const customer = await chain();
      const res = await search(customer, buildSearch({ schema: 'member', key: A }, { limit: 2 }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [C1, D1], total: 5 });
    });

    test('when limit is 1, then one result and the full total', async () => {
      const customer = await chain();
      const res = await search(customer, buildSearch({ schema: 'member', key: A }, { limit: 1, having: { type: 'member_id' } }));
      expect(res.body).toEqual({ results: [A], total: 3 });
    });

    test('when limit is 0, then 400 validation_failed at /body/limit', async () => {
      const customer = await chain();
      const res = await search(customer, buildSearch({ schema: 'member', key: A }, { limit: 0 }));
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body/limit']);
    });

    test('when limit is above the default SEARCH_MAX_LIMIT of 100000, then 400 validation_failed at /body/limit; 100000 itself is accepted', async () => {
      const customer = await chain();
      const refused = await search(customer, buildSearch({ schema: 'member', key: A }, { limit: 100001 }));
      expectProblem(refused, 400, 'validation_failed');
      expect(errorPaths(refused)).toEqual(['/body/limit']);
      const accepted = await search(customer, buildSearch({ schema: 'member', key: A }, { limit: 100000 }));
      expect(accepted.status).toBe(200);
      expect(accepted.body.total).toBe(5);
    });

    test('when no limit is given and more than 10000 IDs match, then 10000 come back and total counts all', async () => {
      const customer = uniqueCustomer('big');
      await putSchema(app, customer);
      const key = id('member_id', 'big');
      const batch = (n: number) => Array.from({ length: 1000 }, (_, i) => id('cookie', `c${String(n * 1000 + i).padStart(5, '0')}`));
      // Two nodes sharing c00000, as one node holds at most NODE_MAX_IDS (10000) IDs.
      const other = id('member_id', 'big-2');
      await createNode(app, customer, buildNode({ key, ids: batch(0) }));
      await createNode(app, customer, buildNode({ key: other, ids: [id('cookie', 'c00000')] }));
      for (let n = 1; n <= 10; n += 1) {
        const res = await app.call('POST', `/v1/${customer}/node/_insert`, { body: { schema: 'member', key: n <= 5 ? key : other, ids: batch(n) } });
        expect(res.status).toBe(201);
      }
      const res = await search(customer, buildSearch({ schema: 'member', key }));
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(11002);
      expect(res.body.results).toHaveLength(10000);
      expect(res.body.results[0]).toEqual(id('cookie', 'c00000'));
      expect(res.body.results[9999]).toEqual(id('cookie', 'c09999'));
    });
  });

  describe('SEARCH_MAX_LIMIT', () => {
    let small: TestApp;
    let customer: string;
    beforeAll(async () => {
      small = await startApp({ env: { SEARCH_MAX_LIMIT: '5' } });
      customer = uniqueCustomer('maxlimit');
      await putSchema(small, customer);
      await createNode(small, customer, buildNode({ key: A, ids: [D1] }));
    });
    afterAll(() => small.close());

    test('when limit equals SEARCH_MAX_LIMIT, then 200', async () => {
      const res = await small.call('POST', `/v1/${customer}/_search`, { body: buildSearch({ schema: 'member', key: A }, { limit: 5 }) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [D1, A], total: 2 });
    });

    test('when limit is above SEARCH_MAX_LIMIT, then 400 validation_failed at /body/limit', async () => {
      const res = await small.call('POST', `/v1/${customer}/_search`, { body: buildSearch({ schema: 'member', key: A }, { limit: 6 }) });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body/limit']);
    });

    test('when no limit is sent and SEARCH_MAX_LIMIT is below 10000, then the search works and returns at most SEARCH_MAX_LIMIT', async () => {
      for (let i = 0; i < 6; i += 1) {
        await small.call('POST', `/v1/${customer}/node/_insert`, { body: { schema: 'member', key: A, ids: [{ type: 'cookie', id: `c${i}` }] } });
      }
      const res = await small.call('POST', `/v1/${customer}/_search`, { body: buildSearch({ schema: 'member', key: A }) });
      expect(res.status).toBe(200);
      expect(res.body.results).toHaveLength(5);
      expect(res.body.total).toBe(8);
    });
  });

  describe('TRAVERSAL_MAX_NODES', () => {
    let small: TestApp;
    let customer: string;
    beforeAll(async () => {
      small = await startApp({ env: { TRAVERSAL_MAX_NODES: '3' } });
      customer = uniqueCustomer('traverse');
      await putSchema(small, customer);
      // a chain of four nodes: n1 – n2 – n3 – n4, each sharing a device with the next
      for (let i = 1; i <= 4; i += 1) {
        const ids = [id('device', `d${i}`), ...(i > 1 ? [id('device', `d${i - 1}`)] : [])];
        await createNode(small, customer, buildNode({ key: id('member_id', `n${i}`), ids }));
      }
    });
    afterAll(() => small.close());

    const find = (body: unknown) => small.call('POST', `/v1/${customer}/_search`, { body });

    test('when the search would visit more nodes than TRAVERSAL_MAX_NODES, then 422 component_too_large', async () => {
      const res = await find(buildSearch({ schema: 'member', key: id('member_id', 'n1') }));
      expectProblem(res, 422, 'component_too_large');
    });

    test('when the search visits exactly TRAVERSAL_MAX_NODES nodes, then 200', async () => {
      const res = await find(buildSearch({ schema: 'member', key: id('member_id', 'n2') }, { step: 'ONE' }));
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([
        id('device', 'd1'),
        id('device', 'd2'),
        id('device', 'd3'),
        id('member_id', 'n1'),
        id('member_id', 'n2'),
        id('member_id', 'n3'),
      ]);
    });

    test('when more nodes than TRAVERSAL_MAX_NODES hold the where ID, then 422 component_too_large, from every step and schema; with one fewer, 200', async () => {
      const other = uniqueCustomer('traverse');
      await putSchema(small, other);
      for (let i = 1; i <= 4; i += 1) await createNode(small, other, buildNode({ key: id('member_id', `h${i}`), ids: [id('cookie', 'shared')] }));
      for (const step of ['ONE', 'ALL'] as const) {
        for (const from of [{ where: id('cookie', 'shared') }, { schema: 'member', where: id('cookie', 'shared'), exclude: true }]) {
          const res = await small.call('POST', `/v1/${other}/_search`, { body: buildSearch(from, { step }) });
          expect({ step, from, status: res.status, code: res.body.code }).toEqual({ step, from, status: 422, code: 'component_too_large' });
        }
      }
      const deleted = await small.call('POST', `/v1/${other}/node/_delete`, { body: { schema: 'member', key: id('member_id', 'h4') } });
      expect(deleted.status).toBe(204);
      const res = await small.call('POST', `/v1/${other}/_search`, { body: buildSearch({ where: id('cookie', 'shared') }, { step: 'ONE' }) });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(4);
    });

    test('when step ONE keeps the search small, then 200 where ALL would be refused', async () => {
      const res = await find(buildSearch({ schema: 'member', key: id('member_id', 'n1') }, { step: 'ONE' }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [id('device', 'd1'), id('device', 'd2'), id('member_id', 'n1'), id('member_id', 'n2')], total: 4 });
    });
  });

  describe('TRAVERSAL_MAX_IDS', () => {
    let small: TestApp;
    let customer: string;
    const n = (i: number) => id('member_id', `n${i}`);
    const c = (i: number) => id('cookie', `c${i}`);
    beforeAll(async () => {
      small = await startApp({ env: { TRAVERSAL_MAX_IDS: '7' } });
      customer = uniqueCustomer('traverse-ids');
      await putSchema(small, customer);
      // n1 – n2 – n3 (n1 and n2 share d1, n2 and n3 share d2), holding 8 distinct IDs in all:
      // n1 {n1, d1}, n2 {n2, d1, d2}, n3 {n3, d2, c1, c2, c3}.
      await createNode(small, customer, buildNode({ key: n(1), ids: [D1] }));
      await createNode(small, customer, buildNode({ key: n(2), ids: [D1, id('device', 'd2')] }));
      await createNode(small, customer, buildNode({ key: n(3), ids: [id('device', 'd2'), c(1), c(2), c(3)] }));
    });
    afterAll(() => small.close());

    const find = (body: unknown, token?: string) => small.call('POST', `/v1/${customer}/_search`, { body, ...(token ? { token } : {}) });

    test('when step ALL would read more IDs than TRAVERSAL_MAX_IDS, then 422 component_too_large naming the ID bound', async () => {
      const res = await find(buildSearch({ schema: 'member', key: n(1) }));
      expectProblem(res, 422, 'component_too_large');
      expect(res.body.detail).toMatch(/more than 7 IDs/);
    });

    test('when step ONE would read more IDs than TRAVERSAL_MAX_IDS through the nodes it reaches, then 422 component_too_large', async () => {
      // ONE from n2 visits all three nodes: n3's cookies count although n2 holds none of them.
      expectProblem(await find(buildSearch({ schema: 'member', key: n(2) }, { step: 'ONE' })), 422, 'component_too_large');
      // The same from where: the holders of d1 are n1 and n2, and ONE reaches n3 from n2.
      expectProblem(await find(buildSearch({ where: D1 }, { step: 'ONE' })), 422, 'component_too_large');
      // exclude leaves the start node's IDs out of the results, not out of what the search reads.
      expectProblem(await find(buildSearch({ schema: 'member', key: n(2), exclude: true }, { step: 'ONE', limit: 1 })), 422, 'component_too_large');
    });

    test('when the search reads exactly TRAVERSAL_MAX_IDS IDs, then 200 with all of them', async () => {
      // ONE from n3 visits n3 and n2: 7 IDs.
      const expected = [c(1), c(2), c(3), D1, id('device', 'd2'), n(2), n(3)];
      const byKey = await find(buildSearch({ schema: 'member', key: n(3) }, { step: 'ONE' }));
      expect(byKey.status).toBe(200);
      expect(byKey.body).toEqual({ results: expected, total: 7 });
      const byWhere = await find(buildSearch({ where: c(1) }, { step: 'ONE' }));
      expect(byWhere.status).toBe(200);
      expect(byWhere.body).toEqual({ results: expected, total: 7 });
    });

    test('when a component holds exactly TRAVERSAL_MAX_IDS IDs, then step ALL is 200', async () => {
      const other = uniqueCustomer('traverse-ids');
      await putSchema(small, other);
      await createNode(small, other, buildNode({ key: n(1), ids: [D1, c(1), c(2)] }));
      await createNode(small, other, buildNode({ key: n(2), ids: [D1, c(3), c(4)] }));
      const res = await small.call('POST', `/v1/${other}/_search`, { body: buildSearch({ schema: 'member', key: n(1) }) });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(7);
    });

    test('when the IDs past TRAVERSAL_MAX_IDS are secure and no token is sent, then still 422: hidden IDs are read too', async () => {
      const other = uniqueCustomer('traverse-ids');
      await putSchema(small, other);
      const { token } = await issueToken(small, other);
      await createNode(small, other, buildNode({ key: n(1), ids: [D1, c(1), c(2)] }));
      await createNode(small, other, buildNode({ key: n(2), ids: [D1, c(3), c(4), id('email', 'x@example.com')] }), token);
      const res = await small.call('POST', `/v1/${other}/_search`, { body: buildSearch({ schema: 'member', key: n(1) }) });
      expectProblem(res, 422, 'component_too_large');
      const withToken = await small.call('POST', `/v1/${other}/_search`, { body: buildSearch({ schema: 'member', key: n(1) }), token });
      expectProblem(withToken, 422, 'component_too_large');
    });
  });

  describe('refused searches', () => {
    let customer: string;
    beforeAll(async () => {
      customer = await chain();
    });

    test('when neither schema with key nor where is given, then 400 invalid_search', async () => {
      expectProblem(await search(customer, { match: { from: {} } }), 400, 'invalid_search');
      expectProblem(await search(customer, buildSearch({ schema: 'member' })), 400, 'invalid_search');
      expectProblem(await search(customer, buildSearch({ exclude: true }, { step: 'ONE' })), 400, 'invalid_search');
    });

    test('when key is given without schema, then 400 invalid_search', async () => {
      expectProblem(await search(customer, buildSearch({ key: A })), 400, 'invalid_search');
    });

    test('when key and where are given without schema, then 400 invalid_search', async () => {
      expectProblem(await search(customer, buildSearch({ key: A, where: D1 })), 400, 'invalid_search');
    });

    test('when the schema does not exist, then 404 schema_not_found', async () => {
      expectProblem(await search(customer, buildSearch({ schema: 'nosuch', key: A })), 404, 'schema_not_found');
      expectProblem(await search(customer, buildSearch({ schema: 'nosuch', where: D1 })), 404, 'schema_not_found');
    });

    test('when the key type is not declared by the schema, then 400 key_type_not_in_schema at /body/match/from/key/type', async () => {
      const res = await search(customer, buildSearch({ schema: 'shop', key: D1 }));
      expectProblem(res, 400, 'key_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/match/from/key/type']);
    });

    test('when step is not ONE or ALL, then 400 validation_failed at /body/match/step', async () => {
      const res = await search(customer, { match: { from: { schema: 'member', key: A }, step: 'TWO' } });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body/match/step']);
    });
  });

  describe('secure ID types', () => {
    const EMAIL = id('email', 'a@example.com');
    let customer: string;
    let token: string;
    beforeAll(async () => {
      customer = uniqueCustomer('secure');
      await putSchema(app, customer);
      token = (await issueToken(app, customer)).token;
      await createNode(app, customer, buildNode({ key: A, ids: [D1, EMAIL] }), token);
      await createNode(app, customer, buildNode({ key: B, ids: [D1, id('email', 'b@example.com')] }), token);
    });

    test('when no token is sent, then secure IDs are left out and total counts only the visible ones', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [D1, A, B], total: 3 });
    });

    test('when a bearer token of the customer is sent, then secure IDs appear and are counted', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }), token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [D1, EMAIL, id('email', 'b@example.com'), A, B], total: 5 });
    });

    test('when no token is sent and having.type is the secure type, then 200 with nothing', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }, { having: { type: 'email' } }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [], total: 0 });
    });

    test('when no token is sent and the limit cuts the list, then total still counts only visible IDs', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }, { limit: 1 }));
      expect(res.body).toEqual({ results: [D1], total: 3 });
    });

    test('when where uses a secure type and no token is sent, then 401 authentication_required', async () => {
      const res = await search(customer, buildSearch({ where: EMAIL }));
      expectProblem(res, 401, 'authentication_required');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });

    test('when where uses a secure type that no node holds and no token is sent, then still 401', async () => {
      expectProblem(await search(customer, buildSearch({ where: id('email', 'nobody@example.com') })), 401, 'authentication_required');
    });

    test('when key uses a secure type and no token is sent, then 401 authentication_required', async () => {
      expectProblem(await search(customer, buildSearch({ schema: 'member', key: EMAIL })), 401, 'authentication_required');
    });

    test('when where uses a secure type and a token is sent, then 200 with the linked IDs', async () => {
      const res = await search(customer, buildSearch({ where: EMAIL }, { step: 'ONE' }), token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [D1, EMAIL, id('email', 'b@example.com'), A, B], total: 5 });
    });

    test('when the schema is unknown as well, then 404 schema_not_found comes before the missing token', async () => {
      expectProblem(await search(customer, buildSearch({ schema: 'nosuch', key: EMAIL })), 404, 'schema_not_found');
    });

    test('when the token belongs to another customer, then 403 forbidden', async () => {
      const other = uniqueCustomer('secure');
      const theirs = (await issueToken(app, other)).token;
      expectProblem(await search(customer, buildSearch({ schema: 'member', key: A }), theirs), 403, 'forbidden');
    });

    // The interface's rule (search: secure IDs are left out without a token) hides secure IDs, not the links
    // they make; docs/operations.md, "Security notes". A customer's require_token setting (docs/keeping-people-apart.md) closes it.
    test('when two nodes share only a secure ID and no token is sent, then the search still reaches the other node and shows its open IDs, never the secure one', async () => {
      const linkedOnlySecurely = uniqueCustomer('secure-link');
      await putSchema(app, linkedOnlySecurely);
      const own = (await issueToken(app, linkedOnlySecurely)).token;
      await createNode(app, linkedOnlySecurely, buildNode({ key: A, ids: [D1, EMAIL] }), own);
      await createNode(app, linkedOnlySecurely, buildNode({ key: C, ids: [EMAIL, C1] }), own);

      for (const step of ['ONE', 'ALL'] as const) {
        const res = await search(linkedOnlySecurely, buildSearch({ schema: 'member', key: A }, { step }));
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ results: [C1, D1, A, C], total: 4 });
      }
      const withToken = await search(linkedOnlySecurely, buildSearch({ schema: 'member', key: A }), own);
      expect(withToken.body).toEqual({ results: [C1, D1, EMAIL, A, C], total: 5 });
    });

    test('when the token is unknown, then 401 invalid_token even on a search that needs none', async () => {
      const res = await search(customer, buildSearch({ schema: 'member', key: A }), 'idl_bearer_thisTokenWasNeverIssued0123456789');
      expectProblem(res, 401, 'invalid_token');
    });
  });
});
