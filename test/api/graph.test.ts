// The explorer's read through HTTP: POST /v1/{customer_id}/_graph (the nodes a search reaches, each with the IDs it
// holds, nearest first, cut to max_nodes and to TRAVERSAL_MAX_IDS IDs answered) and GET /explore (the page).
// Every answer is also checked against openapi.yaml by `app.call`. This file also runs on Neo4j (the API suites run
// on both stores), so every describe has customers of its own and asserts only on the contract.
import request, { type Response } from 'supertest';
import type { components } from '../../src/generated/openapi';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { bulkChecked } from '../helpers/bulk';
import { buildSearch, errorPaths, expectProblem, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { createNode, type IdPairBody, issueToken, putSchema } from '../helpers/factories';

// ---- request and answer shapes

type Step = components['schemas']['Step'];
type From = components['schemas']['SearchStart'];
type GraphAnswer = components['schemas']['GraphResponse'];
type GraphNode = GraphAnswer['nodes'][number];
type GraphType = GraphAnswer['types'][number];

/** A GraphRequest: the start, and step and max_nodes only when given. */
const graphBody = (from: From, rest: { step?: Step; max_nodes?: unknown } = {}) => ({
  match: { from, ...(rest.step !== undefined ? { step: rest.step } : {}) },
  ...(rest.max_nodes !== undefined ? { max_nodes: rest.max_nodes } : {}),
});

/** A node as the answer shows it; `ids` are written out in the order the answer must have them. */
const node = (schema: string, key: IdPairBody | { type: string; id: null }, ids: IdPairBody[]): GraphNode => ({ schema, key, ids });
/** An ID type as `types` shows it: open and linking unless told. */
const type = (name: string, options: Partial<Omit<GraphType, 'type'>> = {}): GraphType => ({ type: name, secure: false, links: true, ...options });
const EMPTY: GraphAnswer = { nodes: [], truncated: false, types: [] };

const m = (value: string) => id('member_id', value);
const device = (value: string) => id('device', value);
const cookie = (value: string) => id('cookie', value);

/** The key ids of an answer's nodes, in its order. */
const keyIds = (res: Response): Array<string | null> => (res.body as GraphAnswer).nodes.map((n) => n.key.id);

/** Text that would betray a Neo4j statement or a store's internals in a problem. */
const CYPHER = /\bMATCH\b|\bRETURN\b|\bUNWIND\b|\bWHERE\b|elementId|:LINKED|:IdNode|Neo4j|neo4j|sqlite|SQLITE|stack/;

/** 400 validation_failed whose every error points at `path`. */
function expectInvalidAt(res: Response, path: string): void {
  expectProblem(res, 400, 'validation_failed');
  const paths = errorPaths(res);
  expect(paths.length).toBeGreaterThan(0);
  expect([...new Set(paths)]).toEqual([path]);
}

async function putSettings(app: TestApp, customer: string, settings: object): Promise<void> {
  const res = await app.call('PUT', `/v1/${customer}/settings`, { token: ADMIN_TOKEN, body: settings });
  if (res.status !== 200) throw new Error(`settings failed: ${res.status} ${res.text}`);
}

const graphOn = (app: TestApp) => (customer: string, body: unknown, token?: string) =>
  app.call('POST', `/v1/${customer}/_graph`, { body, ...(token ? { token } : {}) });

// ---------------------------------------------------------------------------------------------------------------
describe('graph', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  const graph = (customer: string, body: unknown, token?: string) => graphOn(app)(customer, body, token);

  // ------------------------------------------------------------------ start, step, exclude
  describe('start nodes, step and exclude', () => {
    /** member: member_id, device, cookie; shop: member_id, cookie. */
    const A = m('a');
    const B = m('b');
    const C = m('c');
    const S = m('s');
    const D1 = device('d1');
    const C1 = cookie('c1');
    // A – B through d1; B – C and B – S and C – S through c1. S is of schema shop.
    const NA = node('member', A, [D1, A]);
    const NB = node('member', B, [C1, D1, B]);
    const NC = node('member', C, [C1, C]);
    const NS = node('shop', S, [C1, S]);
    const TYPES = [type('cookie'), type('device'), type('member_id')];
    let customer: string;
    beforeAll(async () => {
      customer = uniqueCustomer('graph');
      await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'cookie' }] });
      await putSchema(app, customer, 'shop', { id_types: [{ type: 'member_id' }, { type: 'cookie' }] });
      await createNode(app, customer, { schema: 'member', key: A, ids: [D1] });
      await createNode(app, customer, { schema: 'member', key: B, ids: [D1, C1] });
      await createNode(app, customer, { schema: 'member', key: C, ids: [C1] });
      await createNode(app, customer, { schema: 'shop', key: S, ids: [C1] });
    });

    test('when schema and key name a node and step is ALL, then 200 with the whole component level by level, each node with every ID it holds, and the types named', async () => {
      const res = await graph(customer, graphBody({ schema: 'member', key: A }, { step: 'ALL' }));
      expect(res.status).toBe(200);
      // level 0 A; level 1 B (d1); level 2 C and S (c1), member before shop
      expect(res.body).toEqual({ nodes: [NA, NB, NC, NS], truncated: false, types: TYPES });
    });

    test('when step is omitted, then it is ALL, levels counted from the keyed node', async () => {
      const res = await graph(customer, graphBody({ schema: 'member', key: C }));
      expect(res.status).toBe(200);
      // level 0 C; level 1 B and S (c1); level 2 A (d1 of B)
      expect(res.body).toEqual({ nodes: [NC, NB, NS, NA], truncated: false, types: TYPES });
    });

    test('when step is ONE from the end of the chain, then only the start node and its direct neighbour, and truncated is false', async () => {
      const res = await graph(customer, graphBody({ schema: 'member', key: A }, { step: 'ONE' }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NA, NB], truncated: false, types: TYPES });
    });

    test('when step is ONE from the middle, then the start node, then its neighbours by schema and key', async () => {
      const res = await graph(customer, graphBody({ schema: 'member', key: B }, { step: 'ONE' }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NB, NA, NC, NS], truncated: false, types: TYPES });
    });

    test('when where names an ID and no schema, with step ALL, then every holder is level 0 (by schema, key), then the rest', async () => {
      const res = await graph(customer, graphBody({ where: C1 }, { step: 'ALL' }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NB, NC, NS, NA], truncated: false, types: TYPES });
    });

    test('when where names an ID that links and a schema, with step ALL, then all its holders are level 0 whatever their schema', async () => {
      const res = await graph(customer, graphBody({ schema: 'shop', where: C1 }, { step: 'ALL' }));
      expect(res.status).toBe(200);
      // Not [S, B, C, A]: B and C hold c1 as S does, so they are as near as S.
      expect(res.body).toEqual({ nodes: [NB, NC, NS, NA], truncated: false, types: TYPES });
    });

    test("when where names an ID and a schema, with step ONE, then only that schema's holders start, and their neighbours follow", async () => {
      const res = await graph(customer, graphBody({ schema: 'shop', where: C1 }, { step: 'ONE' }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NS, NB, NC], truncated: false, types: [type('cookie'), type('device'), type('member_id')] });
    });

    test('when where names an ID and no schema, with step ONE, then its holders and their neighbours', async () => {
      const res = await graph(customer, graphBody({ where: D1 }, { step: 'ONE' }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NA, NB, NC, NS], truncated: false, types: TYPES });
    });

    test('when exclude is true from a key, then the start node is left out and the others keep their order', async () => {
      const res = await graph(customer, graphBody({ schema: 'member', key: A, exclude: true }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NB, NC, NS], truncated: false, types: TYPES });
    });

    test('when exclude is true from where without a schema, then every holder is left out', async () => {
      const all = await graph(customer, graphBody({ where: C1, exclude: true }));
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ nodes: [NA], truncated: false, types: [type('device'), type('member_id')] });
      const one = await graph(customer, graphBody({ where: D1, exclude: true }, { step: 'ONE' }));
      expect(one.body).toEqual({ nodes: [NC, NS], truncated: false, types: [type('cookie'), type('member_id')] });
    });

    test("when exclude is true from where with a schema, then only that schema's holders are left out", async () => {
      const res = await graph(customer, graphBody({ schema: 'shop', where: C1, exclude: true }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NB, NC, NA], truncated: false, types: TYPES });
    });

    test('when key and where are both given and the keyed node holds where, then the keyed node alone is the start, level 0', async () => {
      const excluded = await graph(customer, graphBody({ schema: 'member', key: C, where: C1, exclude: true }, { step: 'ONE' }));
      expect(excluded.status).toBe(200);
      expect(excluded.body).toEqual({ nodes: [NB, NS], truncated: false, types: TYPES });
      // step ALL: levels count from B, the keyed node: A, C and S are all one step away.
      const all = await graph(customer, graphBody({ schema: 'member', key: B, where: C1 }, { step: 'ALL' }));
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ nodes: [NB, NA, NC, NS], truncated: false, types: TYPES });
      // So a cut keeps the keyed node's nearest neighbour, A (not C, another holder of c1).
      const cut = await graph(customer, graphBody({ schema: 'member', key: B, where: C1 }, { max_nodes: 2 }));
      expect(cut.body).toEqual({ nodes: [NB, NA], truncated: true, types: TYPES });
    });

    test('when the start node has no neighbours and is excluded, then 200 with no nodes and no types', async () => {
      const other = uniqueCustomer('graph');
      await putSchema(app, other, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }] });
      await createNode(app, other, { schema: 'member', key: A, ids: [D1] });
      expect((await graph(other, graphBody({ schema: 'member', key: A, exclude: true }))).body).toEqual(EMPTY);
      expect((await graph(other, graphBody({ schema: 'member', key: A }))).body).toEqual({
        nodes: [NA],
        truncated: false,
        types: [type('device'), type('member_id')],
      });
    });

    test.each([
      ['no node has the key', { schema: 'member', key: m('nobody') }],
      ['no node holds where', { where: device('nowhere') }],
      ['no node of the schema holds where', { schema: 'shop', where: D1 }],
      ['the keyed node does not hold where', { schema: 'member', key: A, where: C1 }],
    ])('when %s, then 200 {nodes: [], truncated: false, types: []}', async (_what, from) => {
      for (const step of ['ONE', 'ALL'] as const) {
        const res = await graph(customer, graphBody(from, { step }));
        expect([res.status, res.body]).toEqual([200, EMPTY]);
      }
    });

    test('when another customer holds the same IDs, then its nodes are never answered', async () => {
      const other = uniqueCustomer('graph');
      await putSchema(app, other, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'cookie' }] });
      await createNode(app, other, { schema: 'member', key: m('x'), ids: [D1, C1] });
      expect((await graph(customer, graphBody({ where: D1 }))).body).toEqual({ nodes: [NA, NB, NC, NS], truncated: false, types: TYPES });
      expect((await graph(other, graphBody({ where: D1 }))).body).toEqual({
        nodes: [node('member', m('x'), [C1, D1, m('x')])],
        truncated: false,
        types: TYPES,
      });
    });
  });

  // ------------------------------------------------------------------ order and max_nodes
  describe('order and max_nodes', () => {
    // The chain z0 – y1 – x2 – w3 (each sharing a device with the next): key ids sort against the levels.
    const Z0 = m('z0');
    const Y1 = m('y1');
    const X2 = m('x2');
    const W3 = m('w3');
    const NZ0 = node('member', Z0, [device('d01'), Z0]);
    const NY1 = node('member', Y1, [device('d01'), device('d12'), Y1]);
    const NX2 = node('member', X2, [device('d12'), device('d23'), X2]);
    const NW3 = node('member', W3, [device('d23'), W3]);
    const TYPES = [type('device'), type('member_id')];
    let chain: string;
    beforeAll(async () => {
      chain = uniqueCustomer('graph-order');
      await putSchema(app, chain, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }] });
      await createNode(app, chain, { schema: 'member', key: Z0, ids: [device('d01')] });
      await createNode(app, chain, { schema: 'member', key: Y1, ids: [device('d01'), device('d12')] });
      await createNode(app, chain, { schema: 'member', key: X2, ids: [device('d12'), device('d23')] });
      await createNode(app, chain, { schema: 'member', key: W3, ids: [device('d23')] });
    });

    test('when the component is a chain, then the nodes come level by level from the start, not by key', async () => {
      const res = await graph(chain, graphBody({ schema: 'member', key: Z0 }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NZ0, NY1, NX2, NW3], truncated: false, types: TYPES });
    });

    test('when two nodes are on the same level, then they come by key id', async () => {
      const res = await graph(chain, graphBody({ schema: 'member', key: X2 }));
      expect(res.status).toBe(200);
      // level 0 x2; level 1 w3 and y1 (w3 first by id); level 2 z0
      expect(res.body).toEqual({ nodes: [NX2, NW3, NY1, NZ0], truncated: false, types: TYPES });
    });

    test('when max_nodes is 2 on a chain of four, then the two nearest nodes, connected, and truncated is true', async () => {
      const res = await graph(chain, graphBody({ schema: 'member', key: Z0 }, { max_nodes: 2 }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NZ0, NY1], truncated: true, types: TYPES });
    });

    test('when max_nodes is 1, then the start node alone and truncated is true', async () => {
      const res = await graph(chain, graphBody({ schema: 'member', key: X2 }, { max_nodes: 1 }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NX2], truncated: true, types: TYPES });
    });

    test('when max_nodes is one less than the component, then all but the farthest and truncated is true', async () => {
      const res = await graph(chain, graphBody({ schema: 'member', key: X2 }, { max_nodes: 3 }));
      expect(res.body).toEqual({ nodes: [NX2, NW3, NY1], truncated: true, types: TYPES });
    });

    test('when max_nodes equals the component size, then every node and truncated is false', async () => {
      const res = await graph(chain, graphBody({ schema: 'member', key: Z0 }, { max_nodes: 4 }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NZ0, NY1, NX2, NW3], truncated: false, types: TYPES });
    });

    test('when max_nodes is 2000 (the most), then it is accepted', async () => {
      const res = await graph(chain, graphBody({ schema: 'member', key: Z0 }, { max_nodes: 2000 }));
      expect([res.status, res.body]).toEqual([200, { nodes: [NZ0, NY1, NX2, NW3], truncated: false, types: TYPES }]);
    });

    test('when exclude leaves the start node out, then max_nodes counts only the answered nodes', async () => {
      const all = await graph(chain, graphBody({ schema: 'member', key: Z0, exclude: true }, { max_nodes: 3 }));
      expect(all.body).toEqual({ nodes: [NY1, NX2, NW3], truncated: false, types: TYPES });
      const cut = await graph(chain, graphBody({ schema: 'member', key: Z0, exclude: true }, { max_nodes: 2 }));
      expect(cut.body).toEqual({ nodes: [NY1, NX2], truncated: true, types: TYPES });
    });

    test('when step ONE reaches more nodes than max_nodes, then the start node first, then its neighbours by key, cut', async () => {
      const res = await graph(chain, graphBody({ schema: 'member', key: Y1 }, { step: 'ONE', max_nodes: 2 }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [NY1, NX2], truncated: true, types: TYPES });
    });

    test('when max_nodes is absent, then at most 500 nodes are answered, nearest first', async () => {
      const customer = uniqueCustomer('graph-500');
      await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }] });
      const keys = Array.from({ length: 501 }, (_, i) => `p${String(i).padStart(3, '0')}`);
      const lines = keys.map((k) => JSON.stringify({ op: 'create', body: { schema: 'member', key: m(k), ids: [device('hot')] } })).join('\n');
      const { res: bulk, results } = await bulkChecked(app.baseUrl, customer, `${lines}\n`);
      expect(bulk.status).toBe(200);
      expect(results.filter((r) => r.status !== 201)).toEqual([]);

      const res = await graph(customer, graphBody({ where: device('hot') }));
      expect(res.status).toBe(200);
      expect(keyIds(res)).toEqual(keys.slice(0, 500));
      expect((res.body as GraphAnswer).truncated).toBe(true);
      expect((res.body as GraphAnswer).nodes[0]).toEqual(node('member', m('p000'), [device('hot'), m('p000')]));
      const whole = await graph(customer, graphBody({ where: device('hot') }, { max_nodes: 501 }));
      expect(keyIds(whole)).toEqual(keys);
      expect((whole.body as GraphAnswer).truncated).toBe(false);
    });

    test('when a person is a chain of 2,000 nodes (the most max_nodes answers), then step ALL answers every one, level by level, from an end or from the middle', async () => {
      const customer = uniqueCustomer('graph-2000');
      await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }] });
      // Node i holds the links l(i) and l(i + 1): node i is i nodes away from node 0.
      const keys = Array.from({ length: 2000 }, (_, i) => `p${String(i).padStart(4, '0')}`);
      const link = (i: number) => device(`l${String(i).padStart(4, '0')}`);
      const lines = keys.map((k, i) => JSON.stringify({ op: 'create', body: { schema: 'member', key: m(k), ids: [link(i), link(i + 1)] } })).join('\n');
      const { res: bulk, results } = await bulkChecked(app.baseUrl, customer, `${lines}\n`);
      expect(bulk.status).toBe(200);
      expect(results.filter((r) => r.status !== 201)).toEqual([]);

      const fromEnd = await graph(customer, graphBody({ schema: 'member', key: m('p0000') }, { max_nodes: 2000 }));
      expect(fromEnd.status).toBe(200);
      expect(keyIds(fromEnd)).toEqual(keys);
      expect((fromEnd.body as GraphAnswer).truncated).toBe(false);
      expect((fromEnd.body as GraphAnswer).nodes[1999]).toEqual(node('member', m('p1999'), [link(1999), link(2000), m('p1999')]));

      // From the ID p0999 and p1000 share: both level 0, then one further on each side per level, by key.
      const fromMiddle = await graph(customer, graphBody({ where: link(1000) }, { max_nodes: 2000 }));
      expect(fromMiddle.status).toBe(200);
      const distance = (i: number) => (i < 1000 ? 999 - i : i - 1000);
      const byLevel = keys.map((k, i) => ({ k, level: distance(i) })).sort((a, b) => a.level - b.level || (a.k < b.k ? -1 : 1));
      expect(keyIds(fromMiddle)).toEqual(byLevel.map((n) => n.k));
      expect((fromMiddle.body as GraphAnswer).truncated).toBe(false);
    });

    test('when nodes of one level differ in schema, key type and key id, then they come by schema, key type, key id in code-point order', async () => {
      const customer = uniqueCustomer('graph-cp');
      await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'cookie' }] });
      // 'Shop' < 'member' by code point (a locale order would say the opposite).
      await putSchema(app, customer, 'Shop', { id_types: [{ type: 'member_id' }, { type: 'cookie' }, { type: 'device' }] });
      const hub = m('hub');
      const values = ['b', 'B', 'a', '10', '9', '\u{1F600}', '\uFF5E', 'é'];
      await createNode(app, customer, { schema: 'member', key: hub, ids: [device('h'), ...values.map(device), cookie('z'), cookie('Z')] });
      // Created in an order that is none of the answer's.
      await createNode(app, customer, { schema: 'member', key: m('\u{1F600}'), ids: [device('h')] });
      await createNode(app, customer, { schema: 'member', key: m('B'), ids: [device('h')] });
      await createNode(app, customer, { schema: 'Shop', key: m('a'), ids: [device('h')] });
      await createNode(app, customer, { schema: 'member', key: m('\uFF5E'), ids: [device('h')] });
      await createNode(app, customer, { schema: 'member', key: device('x'), ids: [device('h')] });
      await createNode(app, customer, { schema: 'Shop', key: cookie('k'), ids: [device('h')] });

      const res = await graph(customer, graphBody({ schema: 'member', key: hub }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        nodes: [
          node('member', hub, [
            cookie('Z'),
            cookie('z'),
            // U+FF5E sorts before U+1F600 by code point, after it by UTF-16 code unit
            ...['10', '9', 'B', 'a', 'b', 'h', 'é', '\uFF5E', '\u{1F600}'].map(device),
            hub,
          ]),
          node('Shop', cookie('k'), [cookie('k'), device('h')]),
          node('Shop', m('a'), [device('h'), m('a')]),
          node('member', device('x'), [device('h'), device('x')]),
          node('member', m('B'), [device('h'), m('B')]),
          node('member', m('\uFF5E'), [device('h'), m('\uFF5E')]),
          node('member', m('\u{1F600}'), [device('h'), m('\u{1F600}')]),
        ],
        truncated: false,
        types: [type('cookie'), type('device'), type('member_id')],
      });
    });
  });

  // ------------------------------------------------------------------ type options
  describe('links: false and max_holders', () => {
    const P = m('p');
    const Q = m('q');
    const IP = id('ip', '10.0.0.1');
    const TYPES = [type('cookie', { max_holders: 3 }), type('ip', { links: false }), type('member_id')];
    let customer: string;
    beforeAll(async () => {
      customer = uniqueCustomer('graph-types');
      await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'ip', links: false }, { type: 'cookie', max_holders: 3 }] });
      // P and Q share only the ip, which links nothing.
      await createNode(app, customer, { schema: 'member', key: P, ids: [IP, cookie('k')] });
      await createNode(app, customer, { schema: 'member', key: Q, ids: [IP] });
    });

    test('when two nodes share only an ID of a links: false type, then they are not one component', async () => {
      for (const step of ['ONE', 'ALL'] as const) {
        const fromP = await graph(customer, graphBody({ schema: 'member', key: P }, { step }));
        expect([fromP.status, fromP.body]).toEqual([200, { nodes: [node('member', P, [cookie('k'), IP, P])], truncated: false, types: TYPES }]);
        const fromQ = await graph(customer, graphBody({ schema: 'member', key: Q }, { step }));
        expect(fromQ.body).toEqual({ nodes: [node('member', Q, [IP, Q])], truncated: false, types: [type('ip', { links: false }), type('member_id')] });
      }
    });

    test('when where is the links: false ID, then its holders are the start nodes, and nothing is reached through it', async () => {
      for (const from of [{ where: IP }, { schema: 'member', where: IP }]) {
        const res = await graph(customer, graphBody(from));
        expect([res.status, res.body]).toEqual([
          200,
          { nodes: [node('member', P, [cookie('k'), IP, P]), node('member', Q, [IP, Q])], truncated: false, types: TYPES },
        ]);
      }
      const excluded = await graph(customer, graphBody({ where: IP, exclude: true }));
      expect(excluded.body).toEqual(EMPTY);
    });

    test("when a schema replacement makes a type links: false with max_holders, then the next call's types say so", async () => {
      const other = uniqueCustomer('graph-types');
      await putSchema(app, other, 'member', { id_types: [{ type: 'member_id' }, { type: 'cookie' }] });
      await createNode(app, other, { schema: 'member', key: P, ids: [cookie('k')] });
      const before = await graph(other, graphBody({ schema: 'member', key: P }));
      expect(before.body).toEqual({ nodes: [node('member', P, [cookie('k'), P])], truncated: false, types: [type('cookie'), type('member_id')] });
      await putSchema(app, other, 'member', { id_types: [{ type: 'member_id' }, { type: 'cookie', links: false, max_holders: 7 }] });
      const after = await graph(other, graphBody({ schema: 'member', key: P }));
      expect(after.body).toEqual({
        nodes: [node('member', P, [cookie('k'), P])],
        truncated: false,
        types: [type('cookie', { links: false, max_holders: 7 }), type('member_id')],
      });
    });
  });

  // ------------------------------------------------------------------ tokens
  describe('secure ID types and tokens', () => {
    const A = m('a');
    const D1 = device('d1');
    const EMAIL_A = id('email', 'a@example.com');
    const EMAIL_K = id('email', 'k@example.com');
    const TYPES = [type('device'), type('email', { secure: true }), type('member_id')];
    let customer: string;
    let token: string;
    beforeAll(async () => {
      customer = uniqueCustomer('graph-secure');
      await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'email', secure: true }] });
      // contact is keyed by the secure type.
      await putSchema(app, customer, 'contact', { id_types: [{ type: 'email', secure: true }, { type: 'device' }] });
      token = (await issueToken(app, customer)).token;
      await createNode(app, customer, { schema: 'member', key: A, ids: [D1, EMAIL_A] }, token);
      await createNode(app, customer, { schema: 'contact', key: EMAIL_K, ids: [D1] }, token);
    });

    test('when no token is sent, then secure IDs are absent from ids and a node keyed by a secure type has key.id null', async () => {
      const res = await graph(customer, graphBody({ schema: 'member', key: A }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        nodes: [node('member', A, [D1, A]), node('contact', { type: 'email', id: null }, [D1])],
        truncated: false,
        types: TYPES,
      });
      expect(res.text).not.toContain('example.com');
    });

    test('when a bearer token of the customer is sent, then secure IDs and the secure key are present', async () => {
      const res = await graph(customer, graphBody({ schema: 'member', key: A }), token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        nodes: [node('member', A, [D1, EMAIL_A, A]), node('contact', EMAIL_K, [D1, EMAIL_K])],
        truncated: false,
        types: TYPES,
      });
    });

    test('when the start is on a secure type and no token is sent, then 401 authentication_required', async () => {
      for (const from of [
        { schema: 'contact', key: EMAIL_K },
        { where: EMAIL_A },
        { schema: 'member', where: EMAIL_A },
        { where: id('email', 'nobody@example.com') },
      ]) {
        const res = await graph(customer, graphBody(from));
        expectProblem(res, 401, 'authentication_required');
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
    });

    test('when the start is on a secure type and a token is sent, then 200, nearest first', async () => {
      const res = await graph(customer, graphBody({ schema: 'contact', key: EMAIL_K }), token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [node('contact', EMAIL_K, [D1, EMAIL_K]), node('member', A, [D1, EMAIL_A, A])], truncated: false, types: TYPES });
      const byWhere = await graph(customer, graphBody({ where: EMAIL_A }, { step: 'ONE' }), token);
      expect(byWhere.body).toEqual({ nodes: [node('member', A, [D1, EMAIL_A, A]), node('contact', EMAIL_K, [D1, EMAIL_K])], truncated: false, types: TYPES });
    });

    test("when the token is another customer's, then 403 forbidden; when it was never issued, then 401 invalid_token", async () => {
      const theirs = (await issueToken(app, uniqueCustomer('graph-secure'))).token;
      expectProblem(await graph(customer, graphBody({ schema: 'member', key: A }), theirs), 403, 'forbidden');
      expectProblem(await graph(customer, graphBody({ schema: 'member', key: A }), 'idl_bearer_thisTokenWasNeverIssued0123456789'), 401, 'invalid_token');
    });

    test('when the customer requires a token, then 401 authentication_required without one, even from an open type; 200 with one', async () => {
      const strict = uniqueCustomer('graph-strict');
      await putSchema(app, strict, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }] });
      const own = (await issueToken(app, strict)).token;
      await createNode(app, strict, { schema: 'member', key: A, ids: [D1] });
      await putSettings(app, strict, { require_token: true });
      for (const from of [{ schema: 'member', key: A }, { where: D1 }, { schema: 'nosuch', key: A }]) {
        const res = await graph(strict, graphBody(from));
        expectProblem(res, 401, 'authentication_required');
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
      const res = await graph(strict, graphBody({ schema: 'member', key: A }), own);
      expect([res.status, res.body]).toEqual([200, { nodes: [node('member', A, [D1, A])], truncated: false, types: [type('device'), type('member_id')] }]);
    });
  });

  // ------------------------------------------------------------------ refused requests
  describe('refused requests', () => {
    const A = m('a');
    let customer: string;
    beforeAll(async () => {
      customer = uniqueCustomer('graph-refused');
      await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }] });
      await putSchema(app, customer, 'shop', { id_types: [{ type: 'member_id' }, { type: 'cookie' }] });
      await createNode(app, customer, { schema: 'member', key: A, ids: [device('d1')] });
    });

    test('when the schema does not exist, then 404 schema_not_found', async () => {
      expectProblem(await graph(customer, graphBody({ schema: 'nosuch', key: A })), 404, 'schema_not_found');
      expectProblem(await graph(customer, graphBody({ schema: 'nosuch', where: device('d1') })), 404, 'schema_not_found');
    });

    test('when the key type is not declared by the schema, then 400 key_type_not_in_schema at /body/match/from/key/type (as the search)', async () => {
      const res = await graph(customer, graphBody({ schema: 'shop', key: device('d1') }));
      expectProblem(res, 400, 'key_type_not_in_schema');
      expect(errorPaths(res)).toEqual(['/body/match/from/key/type']);
      const searched = await app.call('POST', `/v1/${customer}/_search`, { body: buildSearch({ schema: 'shop', key: device('d1') }) });
      expect([searched.status, searched.body.code]).toEqual([res.status, res.body.code]);
    });

    test('when neither schema with key nor where is given, or key comes without schema, then 400 invalid_search (as the search)', async () => {
      for (const from of [{}, { schema: 'member' }, { exclude: true }, { key: A }, { key: A, where: device('d1') }]) {
        expectProblem(await graph(customer, graphBody(from)), 400, 'invalid_search');
        const searched = await app.call('POST', `/v1/${customer}/_search`, { body: buildSearch(from) });
        expect([searched.status, searched.body.code]).toEqual([400, 'invalid_search']);
      }
    });

    test('when match has having, then 400 validation_failed at /body/match/having', async () => {
      const res = await graph(customer, { match: { from: { schema: 'member', key: A }, having: { type: 'device' } } });
      expectInvalidAt(res, '/body/match/having');
    });

    test.each([0, 2001, '5', 1.5, -1, null])('when max_nodes is %j, then 400 validation_failed at /body/max_nodes', async (maxNodes) => {
      expectInvalidAt(await graph(customer, { ...graphBody({ schema: 'member', key: A }), max_nodes: maxNodes }), '/body/max_nodes');
    });

    test.each([
      ['the body has an unknown property', { ...graphBody({ schema: 'member', key: A }), limit: 10 }, '/body/limit'],
      ['from has an unknown property', graphBody({ schema: 'member', key: A, having: 'x' } as From), '/body/match/from/having'],
      ['step is not ONE or ALL', { match: { from: { schema: 'member', key: A }, step: 'TWO' } }, '/body/match/step'],
      ['match is missing', { max_nodes: 5 }, '/body/match'],
      ['exclude is not a boolean', graphBody({ schema: 'member', key: A, exclude: 'yes' } as unknown as From), '/body/match/from/exclude'],
    ])('when %s, then 400 validation_failed at its path', async (_what, body, path) => {
      const res = await graph(customer, body);
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toContain(path);
    });

    test('when the customer id in the path is malformed, too long or reserved, then 400 validation_failed at /path/customer_id', async () => {
      for (const bad of ['bad%20customer', 'c'.repeat(65)]) {
        const res = await app.call('POST', `/v1/${bad}/_graph`, { body: graphBody({ schema: 'member', key: A }) });
        expectInvalidAt(res, '/path/customer_id');
      }
      const reserved = await app.call('POST', '/v1/delivery/_graph', { body: graphBody({ schema: 'member', key: A }) });
      expect([reserved.status, reserved.body.code, reserved.body.errors]).toEqual([
        400,
        'validation_failed',
        [{ path: '/path/customer_id', message: 'is a reserved name; choose another' }],
      ]);
      // 64 characters is a customer id, with nothing stored: no nodes.
      const longest = await app.call('POST', `/v1/${'c'.repeat(64)}/_graph`, { body: graphBody({ where: device('d1') }) });
      expect([longest.status, longest.body]).toEqual([200, EMPTY]);
    });

    test('when the path is spelled in another case, then 404 not_found', async () => {
      expectProblem(await app.call('POST', `/v1/${customer}/_Graph`, { body: graphBody({ schema: 'member', key: A }) }), 404, 'not_found');
    });
  });

  // ------------------------------------------------------------------ GET /explore
  describe('GET /explore', () => {
    // The test setup bundles the page into dist/explorer (test/global-setup.js), as `npm run build` does.
    test('when the page is asked for, then 200 text/html naming its script and style, under a CSP without unsafe-eval or an inline script-src', async () => {
      const res = await app.call('GET', '/explore');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('src="explore/explorer.js"');
      expect(res.text).toContain('href="explore/explorer.css"');
      const csp = String(res.headers['content-security-policy'] ?? '');
      expect(csp).not.toBe('');
      expect(csp).not.toMatch(/unsafe-eval/);
      const directives = new Map(
        csp
          .split(';')
          .map((d) => d.trim().split(/\s+/))
          .filter((parts) => parts[0])
          .map((parts) => [(parts[0] as string).toLowerCase(), parts.slice(1)]),
      );
      // script-src, or default-src when there is none.
      const scriptSrc = directives.get('script-src') ?? directives.get('default-src');
      expect(scriptSrc).toBeDefined();
      expect(scriptSrc).not.toContain("'unsafe-inline'");
      expect(scriptSrc).not.toContain("'unsafe-eval'");
    });

    // Through supertest itself: the assets are not operations of openapi.yaml, which app.call checks answers against.
    test('when its files are asked for, then the bundle and the style come from the service; an unknown file or the folder itself is 404', async () => {
      const asset = (file: string) => request(app.baseUrl).get(`/explore/${file}`);
      const script = await asset('explorer.js');
      expect(script.status).toBe(200);
      expect(script.headers['content-type']).toMatch(/^(text|application)\/javascript/);
      const style = await asset('explorer.css');
      expect(style.status).toBe(200);
      expect(style.headers['content-type']).toMatch(/^text\/css/);
      expectProblem(await asset('nothing.js'), 404, 'not_found');
      expectProblem(await asset(''), 404, 'not_found');
      expectProblem(await asset('%2e%2e/package.json'), 404, 'not_found');
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('graph past TRAVERSAL_MAX_NODES (3)', () => {
  let app: TestApp;
  let customer: string;
  const n = (i: number) => m(`n${i}`);
  const d = (i: number) => device(`d${i}`);
  beforeAll(async () => {
    app = await startApp({ env: { TRAVERSAL_MAX_NODES: '3' } });
    customer = uniqueCustomer('graph-big');
    await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }] });
    // the chain n1 – n2 – n3 – n4, each sharing a device with the next
    for (let i = 1; i <= 4; i += 1) await createNode(app, customer, { schema: 'member', key: n(i), ids: [d(i), ...(i > 1 ? [d(i - 1)] : [])] });
  });
  afterAll(() => app.close());

  const graph = (body: unknown) => graphOn(app)(customer, body);
  const storedNodes = () => Promise.all([1, 2, 3, 4].map((i) => app.store.getNodeIds({ customerId: customer, schemaId: 'member', key: n(i) })));

  test('when the search would visit more nodes than TRAVERSAL_MAX_NODES, then 422 component_too_large, whatever max_nodes, with no internals, and nothing changes', async () => {
    const before = await storedNodes();
    for (const body of [
      graphBody({ schema: 'member', key: n(1) }),
      graphBody({ schema: 'member', key: n(1) }, { max_nodes: 1 }),
      graphBody({ schema: 'member', key: n(1), exclude: true }, { max_nodes: 1 }),
      graphBody({ where: d(2) }),
    ]) {
      const res = await graph(body);
      expectProblem(res, 422, 'component_too_large');
      expect(res.body.detail).toMatch(/more than 3 nodes/);
      expect(res.text).not.toMatch(CYPHER);
    }
    expect(await storedNodes()).toEqual(before);
    expect(before).toEqual([
      [d(1), n(1)],
      [d(1), d(2), n(2)],
      [d(2), d(3), n(3)],
      [d(3), d(4), n(4)],
    ]);
  });

  test('when step ONE visits exactly TRAVERSAL_MAX_NODES nodes, then 200 with all of them', async () => {
    const res = await graph(graphBody({ schema: 'member', key: n(2) }, { step: 'ONE' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      nodes: [node('member', n(2), [d(1), d(2), n(2)]), node('member', n(1), [d(1), n(1)]), node('member', n(3), [d(2), d(3), n(3)])],
      truncated: false,
      types: [type('device'), type('member_id')],
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('graph and TRAVERSAL_MAX_IDS (5)', () => {
  let app: TestApp;
  let customer: string;
  const h = (i: number) => m(`h${i}`);
  const HOT = device('hot');
  const NH = (i: number) => node('member', h(i), [HOT, h(i)]);
  const TYPES = [type('device'), type('member_id')];
  beforeAll(async () => {
    app = await startApp({ env: { TRAVERSAL_MAX_IDS: '5' } });
    customer = uniqueCustomer('graph-ids');
    await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }] });
    // h1, h2, h3 share one hot ID: 4 distinct IDs (within the bound), 6 counted once per holder (past it).
    for (let i = 1; i <= 3; i += 1) await createNode(app, customer, { schema: 'member', key: h(i), ids: [HOT] });
  });
  afterAll(() => app.close());

  const graph = (body: unknown) => graphOn(app)(customer, body);

  test("when the component passes the search's bound but its nodes' IDs counted per node exceed TRAVERSAL_MAX_IDS, then fewer nodes and truncated is true", async () => {
    const searched = await app.call('POST', `/v1/${customer}/_search`, { body: buildSearch({ schema: 'member', key: h(1) }) });
    expect([searched.status, searched.body]).toEqual([200, { results: [HOT, h(1), h(2), h(3)], total: 4 }]);

    const res = await graph(graphBody({ schema: 'member', key: h(1) }));
    expect(res.status).toBe(200);
    // h1 (2 IDs), h2 (4 in all); h3 would make 6.
    expect(res.body).toEqual({ nodes: [NH(1), NH(2)], truncated: true, types: TYPES });
  });

  test('when every holder of the hot ID is a start node, or step is ONE, then the same cut', async () => {
    expect((await graph(graphBody({ where: HOT }))).body).toEqual({ nodes: [NH(1), NH(2)], truncated: true, types: TYPES });
    expect((await graph(graphBody({ schema: 'member', key: h(3) }, { step: 'ONE' }))).body).toEqual({ nodes: [NH(3), NH(1)], truncated: true, types: TYPES });
  });

  test('when max_nodes cuts first, then max_nodes nodes and truncated is true', async () => {
    expect((await graph(graphBody({ schema: 'member', key: h(2) }, { max_nodes: 1 }))).body).toEqual({ nodes: [NH(2)], truncated: true, types: TYPES });
  });

  test('when the start node is excluded, then its IDs are not counted and the other two fit', async () => {
    const res = await graph(graphBody({ schema: 'member', key: h(1), exclude: true }));
    expect([res.status, res.body]).toEqual([200, { nodes: [NH(2), NH(3)], truncated: false, types: TYPES }]);
  });

  test('when the component holds more distinct IDs than TRAVERSAL_MAX_IDS, then 422 component_too_large naming the ID bound, with no internals', async () => {
    const other = uniqueCustomer('graph-ids');
    await putSchema(app, other, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }] });
    for (let i = 1; i <= 5; i += 1) await createNode(app, other, { schema: 'member', key: h(i), ids: [HOT] });
    const res = await graphOn(app)(other, graphBody({ where: HOT }, { max_nodes: 1 }));
    expectProblem(res, 422, 'component_too_large');
    expect(res.body.detail).toMatch(/more than 5 IDs/);
    expect(res.text).not.toMatch(CYPHER);
  });
});
