// POST /_why through HTTP (on SQLite, and on Neo4j under test:neo4j): the shortest chain, its tie rule (on what the
// caller sees), max_hops, hops 0, `links: false` types, secure masking, 404, 422 and bad bodies; every answer checked
// against openapi.yaml.
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { expectProblem, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { buildNode, createNode, issueToken, memberSchema, putSchema } from '../helpers/factories';

const WHY_SCHEMA = { id_types: [...memberSchema.id_types, { type: 'tag', links: false }] };
const member = (key: string) => ({ schema: 'member', key: id('member_id', key) });
const node = (key: string) => ({ node: member(key) });
const via = (type: string, value: string) => ({ via: id(type, value) });

describe('_why', () => {
  let app: TestApp;
  let customer: string;
  let token: string;
  beforeAll(async () => {
    app = await startApp();
    customer = uniqueCustomer('why');
    await putSchema(app, customer, 'member', WHY_SCHEMA);
    token = (await issueToken(app, customer)).token;
    const add = (key: string, ids: Array<{ type: string; id: string }>) => createNode(app, customer, buildNode({ key: id('member_id', key), ids }), token);
    // ann and bob share the family tablet.
    await add('ann', [id('device', 'tablet'), id('cookie', 'c-ann')]);
    await add('bob', [id('device', 'tablet'), id('cookie', 'c-bob')]);
    // p to r: three chains of two hops (via k1 then k3 through q2 or q1, via k2 then k3 through q0), created in
    // an order that is not the answer's; and a one-hop shortcut through a `links: false` tag.
    await add('p', [id('cookie', 'k1'), id('cookie', 'k2'), id('tag', 't1')]);
    await add('q2', [id('cookie', 'k1'), id('cookie', 'k3')]);
    await add('q0', [id('cookie', 'k2'), id('cookie', 'k3')]);
    await add('q1', [id('cookie', 'k1'), id('cookie', 'k3')]);
    await add('r', [id('cookie', 'k3'), id('tag', 't1')]);
    // s1 and s2 share only a secure email.
    await add('s1', [id('email', 'same@example.org')]);
    await add('s2', [id('email', 'same@example.org')]);
  });
  afterAll(() => app.close());

  const why = (body: unknown, withToken = false) => app.call('POST', `/v1/${customer}/_why`, { body, ...(withToken ? { token } : {}) });

  test('when two nodes share an ID, then linked in one hop through it', async () => {
    const res = await why({ from: member('ann'), to: member('bob') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ linked: true, hops: 1, path: [node('ann'), via('device', 'tablet'), node('bob')] });
  });

  test('when several shortest chains exist, then the smallest by vias, then by node keys, and never through links:false', async () => {
    const res = await why({ from: member('p'), to: member('r') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ linked: true, hops: 2, path: [node('p'), via('cookie', 'k1'), node('q1'), via('cookie', 'k3'), node('r')] });
    const back = await why({ from: member('r'), to: member('p') });
    expect(back.body).toEqual({ linked: true, hops: 2, path: [node('r'), via('cookie', 'k3'), node('q1'), via('cookie', 'k1'), node('p')] });
  });

  test('when the starts are where conditions held by several nodes, then the chain runs between the nearest of them', async () => {
    const res = await why({ from: { where: id('cookie', 'k2') }, to: { where: id('cookie', 'k3') } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ linked: true, hops: 0, path: [node('q0')] });
  });

  test('when one node holds both starts, then hops 0 and the path is that node', async () => {
    const res = await why({ from: member('ann'), to: { where: id('device', 'tablet') } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ linked: true, hops: 0, path: [node('ann')] });
  });

  test('when the chain is longer than max_hops, then not linked with reason max_hops', async () => {
    const res = await why({ from: member('p'), to: member('r'), max_hops: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ linked: false, hops: null, path: [], reason: 'max_hops' });
  });

  test('when the nodes are in different components, then not linked, with no reason', async () => {
    const res = await why({ from: member('ann'), to: member('p') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ linked: false, hops: null, path: [] });
  });

  test('when two nodes share only a links:false ID, then not linked', async () => {
    const res = await why({ from: { where: id('tag', 't1'), schema: 'member' }, to: member('ann') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ linked: false, hops: null, path: [] });
  });

  test('when the via is secure and no token is sent, then it is masked; with a token it is shown', async () => {
    const res = await why({ from: member('s1'), to: member('s2') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ linked: true, hops: 1, path: [node('s1'), { via: { type: 'email', id: null, secure: true } }, node('s2')] });
    const shown = await why({ from: member('s1'), to: member('s2') }, true);
    expect(shown.body).toEqual({ linked: true, hops: 1, path: [node('s1'), via('email', 'same@example.org'), node('s2')] });
  });

  // s reaches tX through m-a and tY through m-b, each hop an e-mail: without a token the e-mails compare equal, so
  // the node keys decide (m-a), whichever e-mail is the smaller; with a token the smaller e-mail decides.
  test('when equal chains differ by hidden e-mails, then without a token the answer is the same whichever e-mail is smaller', async () => {
    const masked = { via: { type: 'email', id: null, secure: true } };
    const answers = async (first: string, second: string) => {
      const c = uniqueCustomer('why-hidden');
      await putSchema(app, c, 'member', WHY_SCHEMA);
      const { token: own } = await issueToken(app, c);
      const add = (key: string, ids: Array<{ type: string; id: string }>) => createNode(app, c, buildNode({ key: id('member_id', key), ids }), own);
      await add('s', [id('email', first), id('email', second)]);
      await add('m-a', [id('email', first), id('email', 'e3@example.org')]);
      await add('m-b', [id('email', second), id('email', 'e4@example.org')]);
      await add('tX', [id('email', 'e3@example.org'), id('device', 'z')]);
      await add('tY', [id('email', 'e4@example.org'), id('device', 'z')]);
      const body = { from: member('s'), to: { where: id('device', 'z') } };
      const anonymous = await app.call('POST', `/v1/${c}/_why`, { body });
      const withToken = await app.call('POST', `/v1/${c}/_why`, { body, token: own });
      return { anonymous: anonymous.body as unknown, withToken: withToken.body as unknown };
    };
    const one = await answers('a@example.org', 'b@example.org');
    const swapped = await answers('b@example.org', 'a@example.org');
    const throughA = { linked: true, hops: 2, path: [node('s'), masked, node('m-a'), masked, node('tX')] };
    expect(one.anonymous).toEqual(throughA);
    expect(swapped.anonymous).toEqual(throughA);
    expect(one.withToken).toEqual({
      linked: true,
      hops: 2,
      path: [node('s'), via('email', 'a@example.org'), node('m-a'), via('email', 'e3@example.org'), node('tX')],
    });
    expect(swapped.withToken).toEqual({
      linked: true,
      hops: 2,
      path: [node('s'), via('email', 'a@example.org'), node('m-b'), via('email', 'e4@example.org'), node('tY')],
    });
  });

  test('when a start is on a secure type and no token is sent, then 401 authentication_required', async () => {
    expectProblem(await why({ from: { where: id('email', 'same@example.org') }, to: member('s2') }), 401, 'authentication_required');
    const res = await why({ from: { where: id('email', 'same@example.org') }, to: member('s2') }, true);
    expect(res.body).toEqual({ linked: true, hops: 0, path: [node('s2')] });
  });

  test('when a secure start that no node holds is asked without a token, then 401 first, not 404', async () => {
    expectProblem(await why({ from: { where: id('email', 'nobody@example.org') }, to: member('s2') }), 401, 'authentication_required');
    expectProblem(await why({ from: { where: id('email', 'nobody@example.org') }, to: member('s2') }, true), 404, 'node_not_found');
  });

  test('when the customer requires a token, then 401 without one, and the chain with one', async () => {
    const strict = uniqueCustomer('why-strict');
    await putSchema(app, strict, 'member', WHY_SCHEMA);
    const { token: own } = await issueToken(app, strict);
    for (const key of ['a', 'b']) await createNode(app, strict, buildNode({ key: id('member_id', key), ids: [id('device', 'shared')] }), own);
    expect((await app.call('PUT', `/v1/${strict}/settings`, { token: ADMIN_TOKEN, body: { require_token: true } })).status).toBe(200);
    const body = { from: member('a'), to: member('b') };
    expectProblem(await app.call('POST', `/v1/${strict}/_why`, { body }), 401, 'authentication_required');
    const res = await app.call('POST', `/v1/${strict}/_why`, { body, token: own });
    expect(res.body).toEqual({ linked: true, hops: 1, path: [node('a'), via('device', 'shared'), node('b')] });
  });

  test('when no node holds a start, then 404 node_not_found', async () => {
    expectProblem(await why({ from: member('nobody'), to: member('ann') }), 404, 'node_not_found');
    expectProblem(await why({ from: member('ann'), to: { where: id('device', 'nowhere') } }), 404, 'node_not_found');
  });

  test('when a schema is unknown, then 404 schema_not_found', async () => {
    expectProblem(await why({ from: { schema: 'nope', key: id('member_id', 'ann') }, to: member('ann') }), 404, 'schema_not_found');
    expectProblem(await why({ from: member('ann'), to: { schema: 'nope', key: id('member_id', 'ann') } }), 404, 'schema_not_found');
    expectProblem(await why({ from: member('ann'), to: { schema: 'nope', where: id('device', 'tablet') } }), 404, 'schema_not_found');
  });

  test.each([
    ['no to', { from: member('ann') }],
    ['max_hops 0', { from: member('ann'), to: member('bob'), max_hops: 0 }],
    ['max_hops 51', { from: member('ann'), to: member('bob'), max_hops: 51 }],
    ['exclude in a start', { from: { ...member('ann'), exclude: true }, to: member('bob') }],
    ['an unknown property', { from: member('ann'), to: member('bob'), step: 'ONE' }],
  ])('when the body has %s, then 400 validation_failed', async (_name, body) => {
    const res = await why(body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  test('when a start names neither a key nor a where, then 400 invalid_search', async () => {
    expectProblem(await why({ from: { schema: 'member' }, to: member('bob') }), 400, 'invalid_search');
    expectProblem(await why({ from: { key: id('member_id', 'ann') }, to: member('bob') }), 400, 'invalid_search');
  });

  describe('TRAVERSAL_MAX_NODES', () => {
    let small: TestApp;
    let other: string;
    beforeAll(async () => {
      small = await startApp({ env: { TRAVERSAL_MAX_NODES: '3' } });
      other = uniqueCustomer('why-max');
      await putSchema(small, other, 'member', WHY_SCHEMA);
      for (let i = 1; i <= 4; i += 1) await createNode(small, other, buildNode({ key: id('member_id', `n${i}`), ids: [id('device', 'hub')] }));
      await createNode(small, other, buildNode({ key: id('member_id', 'x'), ids: [id('cookie', 'x')] }));
    });
    afterAll(() => small.close());

    test('when the search would visit more nodes than TRAVERSAL_MAX_NODES, then 422 component_too_large', async () => {
      const res = await small.call('POST', `/v1/${other}/_why`, { body: { from: { where: id('device', 'hub') }, to: member('x') } });
      expectProblem(res, 422, 'component_too_large');
    });
  });
});
