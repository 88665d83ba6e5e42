// Separation through HTTP: POST, GET and DELETE /v1/{customer_id}/_separate, and the 409 separated_nodes every node
// write (single and _bulk lines) answers once two nodes are separated. Every response is checked against openapi.yaml
// (app.call); every claim is read back. This file also runs on Neo4j (npm run test:neo4j).
import type { components } from '../../src/generated/openapi';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { bulkChecked } from '../helpers/bulk';
import { expectAuthenticationRequired, issueLabelledToken, nodePath, type NodeOperation } from '../helpers/builders-auth';
import { buildSearch, errorPaths, expectProblem, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { putSchema, type IdPairBody } from '../helpers/factories';

type SeparateRequest = components['schemas']['SeparateRequest'];
type Separation = components['schemas']['Separation'];
type HistoryEntry = components['schemas']['HistoryEntry'];

const admin = { token: ADMIN_TOKEN };
const m = (value: string) => id('member_id', value);
const device = (value: string) => id('device', value);
const cookie = (value: string) => id('cookie', value);
const MEMBER = { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'cookie' }] };
const node = (key: IdPairBody) => ({ schema: 'member', key });

describe('separation', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  const url = (customer: string) => `/v1/${customer}/_separate`;
  const separate = (customer: string, body: unknown, token: string | null = ADMIN_TOKEN) =>
    app.call('POST', url(customer), { body, ...(token ? { token } : {}) });
  const lift = (customer: string, body: unknown, token: string | null = ADMIN_TOKEN) =>
    app.call('DELETE', url(customer), { body, ...(token ? { token } : {}) });
  const write = (customer: string, op: NodeOperation, body: unknown) => app.call('POST', nodePath(customer, op), { ...admin, body });
  const held = (customer: string, key: IdPairBody) => app.store.getNodeIds({ customerId: customer, schemaId: 'member', key });
  async function history(customer: string, key: IdPairBody): Promise<HistoryEntry[]> {
    const q = new URLSearchParams({ schema: 'member', key_type: key.type, key_id: key.id }).toString();
    return (await app.call('GET', `/v1/${customer}/node/_history?${q}`, admin)).body as HistoryEntry[];
  }

  /** A customer where ann and bob both hold the family tablet (one person), ann also cookie c-1. */
  async function family(): Promise<string> {
    const customer = uniqueCustomer('sep');
    await putSchema(app, customer, 'member', MEMBER);
    expect((await write(customer, '_create', { ...node(m('ann')), ids: [device('tablet'), cookie('c-1')] })).status).toBe(201);
    expect((await write(customer, '_create', { ...node(m('bob')), ids: [device('tablet')] })).status).toBe(201);
    return customer;
  }
  const pair = (remove: SeparateRequest['remove_shared_from']): SeparateRequest => ({ nodes: [node(m('ann')), node(m('bob'))], remove_shared_from: remove });

  test('when the family tablet is separated from bob, then 200 ids_removed 1, a search from ann no longer finds bob, and re-importing the tablet to bob is 409 separated_nodes', async () => {
    const customer = await family();
    const res = await separate(customer, pair('B'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ids_removed: 1 });
    expect(await held(customer, m('bob'))).toEqual([m('bob')]);
    const search = await app.call('POST', `/v1/${customer}/_search`, { ...admin, body: buildSearch({ schema: 'member', key: m('ann') }, { step: 'ALL' }) });
    expect((search.body as { results: IdPairBody[] }).results).toEqual([cookie('c-1'), device('tablet'), m('ann')]);
    const refused = await write(customer, '_upsert', { ...node(m('bob')), where: device('tablet'), set: device('tablet') });
    expectProblem(refused, 409, 'separated_nodes');
    expect((refused.body as { detail: string }).detail).toMatch(/member_id=ann.*member_id=bob/);
    expectProblem(await write(customer, '_insert', { ...node(m('ann')), ids: [m('bob')] }), 409, 'separated_nodes');
    expect(await held(customer, m('bob'))).toEqual([m('bob')]);
    expect((await history(customer, m('bob')))[0]).toMatchObject({ op: 'separate', removed: [device('tablet')], actor: 'admin' });
    expect((await history(customer, m('ann')))[0]).toMatchObject({ op: 'separate', removed: [] });
  });

  test('when a _bulk line would make separated nodes share an ID, then that line alone is 409 separated_nodes', async () => {
    const customer = await family();
    await separate(customer, pair('B'));
    const lines = [
      { op: 'insert', body: { ...node(m('bob')), ids: [device('tablet')] } },
      { op: 'insert', body: { ...node(m('bob')), ids: [cookie('c-2')] } },
      { op: 'upsert', body: { ...node(m('ann')), where: cookie('none'), set: cookie('c-2') } },
    ];
    const { res, results } = await bulkChecked(app.baseUrl, customer, lines.map((l) => JSON.stringify(l)).join('\n'), { token: ADMIN_TOKEN });
    expect(res.status).toBe(200);
    expect(results.map((r) => [r.status, r.code])).toEqual([
      [409, 'separated_nodes'],
      [201, undefined],
      [409, 'separated_nodes'],
    ]);
    expect(await held(customer, m('bob'))).toEqual([cookie('c-2'), m('bob')]);
  });

  test('when remove_shared_from is none while they share an ID, then 409 ids_shared and nothing changes; a missing node is 404; one node twice is 400', async () => {
    const customer = await family();
    expectProblem(await separate(customer, pair('none')), 409, 'ids_shared');
    expect(await held(customer, m('bob'))).toEqual([device('tablet'), m('bob')]);
    expectProblem(await separate(customer, { nodes: [node(m('ann')), node(m('nobody'))], remove_shared_from: 'A' }), 404, 'node_not_found');
    const same = await separate(customer, { nodes: [node(m('ann')), node(m('ann'))], remove_shared_from: 'A' });
    expectProblem(same, 400, 'validation_failed');
    expect(errorPaths(same)).toEqual(['/nodes/1']);
    expectProblem(await separate(customer, { nodes: [node(m('ann'))], remove_shared_from: 'A' }), 400, 'validation_failed');
    expect((await app.call('GET', url(customer), admin)).body).toEqual([]);
  });

  test('when called without a token or with a mapi token, then 401 or 403, and nothing is separated', async () => {
    const customer = await family();
    expectAuthenticationRequired(await separate(customer, pair('B'), null));
    expectAuthenticationRequired(await app.call('GET', url(customer)));
    expectAuthenticationRequired(await lift(customer, { nodes: pair('B').nodes }, null));
    const mapi = await issueLabelledToken(app, customer, 'mapi');
    expectProblem(await separate(customer, pair('B'), mapi.token), 403, 'forbidden');
    const own = await issueLabelledToken(app, customer, 'bearer');
    expect((await app.call('GET', url(customer), { token: own.token })).body).toEqual([]);
    expect(await held(customer, m('bob'))).toEqual([device('tablet'), m('bob')]);
  });

  test('when bans are listed, then pages like the delivery list with link and X-Total-Count; DELETE lifts one, and again is 404 separation_not_found', async () => {
    const customer = uniqueCustomer('sep');
    await putSchema(app, customer, 'member', MEMBER);
    for (const n of ['a', 'b', 'c']) await write(customer, '_create', { ...node(m(n)), ids: [] });
    for (const [x, y] of [
      ['c', 'a'],
      ['b', 'c'],
      ['a', 'b'],
    ] as const)
      expect((await separate(customer, { nodes: [node(m(x)), node(m(y))], remove_shared_from: 'none' })).status).toBe(200);
    const first = await app.call('GET', `${url(customer)}?count=2`, admin);
    expect(first.status).toBe(200);
    expect(first.headers['x-total-count']).toBe('3');
    expect(first.headers.link).toMatch(/_separate\?count=2&page=2>; rel="next"/);
    const ban = (x: string, y: string): Separation => ({ nodes: [node(m(x)), node(m(y))] });
    expect(first.body).toEqual([ban('a', 'b'), ban('a', 'c')]);
    expect((await app.call('GET', `${url(customer)}?count=2&page=2`, admin)).body).toEqual([ban('b', 'c')]);
    expectProblem(await app.call('GET', `${url(customer)}?count=0`, admin), 400, 'validation_failed');
    const lifted = await lift(customer, { nodes: [node(m('c')), node(m('a'))] });
    expect(lifted.status).toBe(200);
    expect((await app.call('GET', url(customer), admin)).body).toEqual([ban('a', 'b'), ban('b', 'c')]);
    expectProblem(await lift(customer, { nodes: [node(m('a')), node(m('c'))] }), 404, 'separation_not_found');
    expect((await history(customer, m('c')))[0]).toMatchObject({ op: 'unseparate' });
  });

  test('when a separated node is rekeyed, then the ban follows it; deleted, then the ban goes', async () => {
    const customer = await family();
    await separate(customer, pair('B'));
    expect((await write(customer, '_rekeying', { ...node(m('bob')), set: { id: 'bobby' } })).status).toBe(200);
    expect((await app.call('GET', url(customer), admin)).body).toEqual([{ nodes: [node(m('ann')), node(m('bobby'))] }]);
    expectProblem(await write(customer, '_insert', { ...node(m('bobby')), ids: [device('tablet')] }), 409, 'separated_nodes');
    expect((await write(customer, '_delete', node(m('bobby')))).status).toBe(204);
    expect((await app.call('GET', url(customer), admin)).body).toEqual([]);
  });
});
