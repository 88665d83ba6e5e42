// The explorer's pure parts (explorer/src/model.ts, requests.ts, problems.ts): what a `_graph` answer is drawn as,
// how answers merge, which requests the page sends and what it says when they fail. The page itself is tested in
// a real browser by test/browser/ (npm run test:browser).
import {
  chainIn,
  type Collection,
  drawingOf,
  emptyCollection,
  type GraphAnswer,
  type GraphNode,
  type GraphType,
  identityOf,
  type WhyStep,
  merge,
  SCHEMA_COLOURS,
  SchemaPalette,
  shorten,
} from '../../explorer/src/model';
import { describeProblem, networkProblem, redact } from '../../explorer/src/problems';
import { boundedInteger, graphBody, graphPath, historyPath, requestHeaders, separateBody, separatePath, whyBody, whyPath } from '../../explorer/src/requests';

const id = (type: string, value: string) => ({ type, id: value });
const node = (schema: string, key: { type: string; id: string | null }, ids: Array<{ type: string; id: string }> = []): GraphNode => ({
  schema,
  key,
  ids: key.id === null ? ids : [{ type: key.type, id: key.id }, ...ids],
});
const member = (name: string, ...ids: Array<{ type: string; id: string }>) => node('member', id('member_id', name), ids);
const type = (name: string, options: Partial<GraphType> = {}): GraphType => ({ type: name, secure: false, links: true, ...options });
const answer = (nodes: GraphNode[], types: GraphType[] = [], truncated = false): GraphAnswer => ({ nodes, truncated, types });
const collect = (a: GraphAnswer, start?: { type: string; id: string }): Collection => merge(emptyCollection(), a, start).collection;

describe('what an answer is drawn as', () => {
  test('when two nodes share an ID, then one line joins them, labelled with it, and an ID of one node draws nothing', () => {
    const drawing = drawingOf(collect(answer([member('m-1', id('device', 'd-1'), id('cookie', 'k-1')), member('m-2', id('device', 'd-1'))])));
    expect(drawing.nodes.map((n) => [n.ref, n.label])).toEqual([
      ['n0', 'member_id: m-1'],
      ['n1', 'member_id: m-2'],
    ]);
    expect(drawing.hubs).toEqual([]);
    expect(drawing.edges).toEqual([
      expect.objectContaining({ kind: 'shared', source: 'n0', target: 'n1', id: id('device', 'd-1'), label: 'device: d-1', links: true }),
    ]);
  });

  test('when two nodes share two IDs, then two lines join them, each its own element', () => {
    const drawing = drawingOf(
      collect(answer([member('m-1', id('device', 'd-1'), id('cookie', 'k-1')), member('m-2', id('device', 'd-1'), id('cookie', 'k-1'))])),
    );
    expect(drawing.edges.map((e) => e.label).sort()).toEqual(['cookie: k-1', 'device: d-1']);
    expect(new Set(drawing.edges.map((e) => e.ref)).size).toBe(2);
  });

  test('when an ID is held by as many drawn nodes as "hot at", then it is a hub with a line to each holder and no line between them', () => {
    const shared = id('ip', '10.0.0.1');
    const drawing = drawingOf(collect(answer([member('m-1', shared), member('m-2', shared), member('m-3', shared)])), 3);
    expect(drawing.hubs).toEqual([expect.objectContaining({ id: shared, label: 'ip: 10.0.0.1 (3)', holders: ['n0', 'n1', 'n2'], links: true })]);
    expect(drawing.edges.map((e) => [e.kind, e.source, e.target])).toEqual([
      ['hub', drawing.hubs[0]?.ref, 'n0'],
      ['hub', drawing.hubs[0]?.ref, 'n1'],
      ['hub', drawing.hubs[0]?.ref, 'n2'],
    ]);
  });

  test('when "hot at" is above the holders, then every pair of holders is joined by a line', () => {
    const shared = id('ip', '10.0.0.1');
    const drawing = drawingOf(collect(answer([member('m-1', shared), member('m-2', shared), member('m-3', shared)])), 4);
    expect(drawing.hubs).toEqual([]);
    expect(drawing.edges.map((e) => [e.source, e.target])).toEqual([
      ['n0', 'n1'],
      ['n0', 'n2'],
      ['n1', 'n2'],
    ]);
  });

  test('when "hot at" is below 2 or not whole, then it counts as 2 and whole', () => {
    const collection = collect(answer([member('m-1', id('device', 'd')), member('m-2', id('device', 'd'))]));
    expect(drawingOf(collection, 0).hubs).toHaveLength(1);
    expect(drawingOf(collection, 2.9).hubs).toHaveLength(1);
    expect(drawingOf(collection, 3).hubs).toHaveLength(0);
  });

  test('when a shared ID is of a links:false type, then its line or hub is marked as not linking, and the others are not', () => {
    const collection = collect(
      answer(
        [member('m-1', id('wifi', 'home'), id('device', 'd-1')), member('m-2', id('wifi', 'home'), id('device', 'd-1')), member('m-3', id('shop', 's'))],
        [type('wifi', { links: false }), type('device'), type('member_id')],
      ),
    );
    const edges = drawingOf(collection).edges;
    expect(edges.filter((e) => !e.links).map((e) => e.label)).toEqual(['wifi: home']);
    expect(edges.filter((e) => e.links).map((e) => e.label)).toEqual(['device: d-1']);
    const hubbed = collect(
      answer([member('a', id('wifi', 'w')), member('b', id('wifi', 'w')), member('c', id('wifi', 'w'))], [type('wifi', { links: false })]),
    );
    expect(drawingOf(hubbed).hubs.map((h) => h.links)).toEqual([false]);
    expect(drawingOf(hubbed).edges.every((e) => !e.links)).toBe(true);
  });

  test('when a node holds the asked ID, then it is a start node; the legend lists the schemas sorted', () => {
    const drawing = drawingOf(collect(answer([node('web', id('cookie', 'k')), member('m-1', id('cookie', 'k'))]), id('member_id', 'm-1')));
    expect(drawing.nodes.map((n) => n.start)).toEqual([false, true]);
    expect(drawing.schemas).toEqual(['member', 'web']);
  });

  test('when a key is hidden (secure, no token), then its label says so', () => {
    const drawing = drawingOf(collect(answer([node('member', { type: 'email', id: null }, [id('device', 'd')])])));
    expect(drawing.nodes[0]?.label).toBe('email: (secure, hidden)');
  });

  test('when a label is long, then it is cut with an ellipsis, never inside a character', () => {
    expect(shorten('device: short')).toBe('device: short');
    const long = shorten(`email: ${'😀'.repeat(40)}`, 10);
    expect([...long]).toHaveLength(10);
    expect(long.endsWith('😀…')).toBe(true);
  });
});

describe('merging answers (expanding an ID)', () => {
  test('when an answer brings known and new nodes, then known ones keep their ref and new ones get the next refs', () => {
    const first = merge(emptyCollection(), answer([member('m-1', id('device', 'd')), member('m-2', id('device', 'd'))]));
    expect(first.added).toEqual(['n0', 'n1']);
    const second = merge(first.collection, answer([member('m-2', id('device', 'd'), id('cookie', 'k')), member('m-3', id('cookie', 'k'))], [type('cookie')]));
    expect(second.added).toEqual(['n2']);
    expect(second.collection.nodes.map((c) => [c.ref, c.node.key.id])).toEqual([
      ['n0', 'm-1'],
      ['n1', 'm-2'],
      ['n2', 'm-3'],
    ]);
    // m-2 showed the cookie only the second time: it holds it now, so cookie k is a line m-2 — m-3.
    expect(second.collection.nodes[1]?.node.ids).toEqual([id('member_id', 'm-2'), id('device', 'd'), id('cookie', 'k')]);
    expect(drawingOf(second.collection).edges.map((e) => [e.label, e.source, e.target])).toEqual([
      ['device: d', 'n0', 'n1'],
      ['cookie: k', 'n1', 'n2'],
    ]);
    expect(second.collection.types.get('cookie')).toEqual(type('cookie'));
    // The collection merged into is left as it was.
    expect(first.collection.nodes).toHaveLength(2);
  });

  test('when the same key is in two schemas, then they are two nodes', () => {
    const merged = merge(collect(answer([member('m-1')])), answer([node('crm', id('member_id', 'm-1'))]));
    expect(merged.added).toEqual(['n1']);
  });

  test('when keys are hidden, then nodes are the same only with the same schema, key type and visible IDs', () => {
    const hidden = (...ids: Array<{ type: string; id: string }>) => node('member', { type: 'email', id: null }, ids);
    expect(identityOf(hidden(id('device', 'a'), id('cookie', 'b')))).toBe(identityOf(hidden(id('cookie', 'b'), id('device', 'a'))));
    const merged = merge(collect(answer([hidden(id('device', 'a'))])), answer([hidden(id('device', 'a')), hidden(id('device', 'b'))]));
    expect(merged.added).toEqual(['n1']);
    expect(identityOf(hidden(id('device', 'a')))).not.toBe(identityOf(node('member', id('email', 'x'), [id('device', 'a')])));
  });
});

describe('a _why chain in the drawing', () => {
  const step = (name: string) => ({ node: { schema: 'member', key: id('member_id', name) } });
  const via = (type: string, value: string | null): WhyStep => ({ via: value === null ? { type, id: null, secure: true } : { type, id: value } });
  // m-1 and m-2 share a phone (a line); m-2, m-3 and m-4 a tablet (a hub at "hot at" 3).
  const collection = collect(
    answer([
      member('m-1', id('phone', 'p-1')),
      member('m-2', id('phone', 'p-1'), id('device', 'tablet')),
      member('m-3', id('device', 'tablet')),
      member('m-4', id('device', 'tablet')),
    ]),
  );
  const drawing = drawingOf(collection);

  test("when the chain goes through a line and a hub, then its nodes, the line, the hub and the hub's two lines are marked", () => {
    const chain = chainIn([step('m-1'), via('phone', 'p-1'), step('m-2'), via('device', 'tablet'), step('m-4')], collection, drawing);
    const hub = drawing.hubs[0]?.ref ?? '';
    const line = drawing.edges.find((e) => e.kind === 'shared')?.ref ?? '';
    expect(chain).toEqual({ nodes: ['n0', 'n1', 'n3'], joins: [line, hub, `${hub} n1`, `${hub} n3`], missing: 0 });
  });

  test('when an ID of the chain is hidden (secure, no token), then the line of that type between the two nodes is marked', () => {
    const chain = chainIn([step('m-1'), via('phone', null), step('m-2')], collection, drawing);
    expect(chain.joins).toHaveLength(1);
    expect(chain.missing).toBe(0);
  });

  test('when part of the chain is not drawn, then what is missing is counted and nothing else marked for it', () => {
    const chain = chainIn([step('m-1'), via('phone', 'p-1'), step('m-2'), via('email', 'e-9'), step('m-9')], collection, drawing);
    expect(chain).toEqual({ nodes: ['n0', 'n1'], joins: [expect.any(String)], missing: 2 });
  });

  test('when _why and _separate are asked, then the paths are escaped and the bodies name the nodes by schema and key only', () => {
    const a = { schema: 'member', key: id('member_id', 'ann') };
    const b = { schema: 'member', key: id('member_id', 'bob') };
    expect(whyPath('a/b')).toBe('v1/a%2Fb/_why');
    expect(separatePath('a/b')).toBe('v1/a%2Fb/_separate');
    expect(whyBody({ ...a, extra: 1 } as typeof a, b)).toEqual({ from: a, to: b });
    expect(separateBody(a, b, 'B')).toEqual({ nodes: [a, b], remove_shared_from: 'B' });
  });
});

describe('schema colours', () => {
  test('when schemas are met, then each keeps the colour it first got, in order of meeting', () => {
    const palette = new SchemaPalette();
    expect(palette.colourOf('web')).toBe(SCHEMA_COLOURS[0]);
    expect(palette.colourOf('crm')).toBe(SCHEMA_COLOURS[1]);
    expect(palette.colourOf('web')).toBe(SCHEMA_COLOURS[0]);
  });
});

describe('the requests the page sends', () => {
  test('when a schema is given, then it is in the start; else it is left out; the customer is escaped in the path', () => {
    expect(graphBody({ customer: 'c', where: id('email', 'a@x.io'), schema: 'crm', step: 'ALL', maxNodes: 500 })).toEqual({
      match: { from: { where: { type: 'email', id: 'a@x.io' }, schema: 'crm' }, step: 'ALL' },
      max_nodes: 500,
    });
    expect(graphBody({ customer: 'c', where: id('device', 'd'), schema: '', step: 'ONE', maxNodes: 1 })).toEqual({
      match: { from: { where: { type: 'device', id: 'd' } }, step: 'ONE' },
      max_nodes: 1,
    });
    expect(graphPath('a/b c')).toBe('v1/a%2Fb%20c/_graph');
  });

  test('when a node is clicked, then its history is asked by schema and key, the newest 20; not at all when the key is hidden', () => {
    expect(historyPath('acme', member('m 1&2'))).toBe('v1/acme/node/_history?schema=member&key_type=member_id&key_id=m+1%262&count=20&page=1');
    expect(historyPath('acme', node('member', { type: 'email', id: null }))).toBeNull();
  });

  test('when no token is given, then no Authorization header is sent', () => {
    expect(requestHeaders('', true)).toEqual({ Accept: 'application/json', 'Content-Type': 'application/json' });
    expect(requestHeaders('idl_bearer_x', false)).toEqual({ Accept: 'application/json', Authorization: 'Bearer idl_bearer_x' });
  });

  test('when a number input is out of bounds or not a whole number, then it is clamped or the default', () => {
    expect(boundedInteger('3000', 1, 2000, 500)).toBe(2000);
    expect(boundedInteger('0', 1, 2000, 500)).toBe(1);
    expect(boundedInteger('', 1, 2000, 500)).toBe(500);
    expect(boundedInteger('2.5', 1, 2000, 500)).toBe(500);
    expect(boundedInteger(' 42 ', 1, 2000, 500)).toBe(42);
  });
});

describe('what the page says when a request fails', () => {
  const problem = (status: number, code: string, extra: object = {}) => ({
    type: `urn:idlink:problem:${code}`,
    title: 'Title',
    status,
    detail: 'Detail.',
    code,
    request_id: 'req-1',
    ...extra,
  });

  test('when the service answers a problem, then its title, detail and request id are shown with a hint by status', () => {
    expect(describeProblem(401, problem(401, 'authentication_required'), null, false)).toEqual({
      title: 'Title',
      detail: 'Detail.',
      hint: 'This needs a token: paste a bearer token of this customer, or the administrator token.',
      requestId: 'req-1',
      errors: [],
    });
    expect(describeProblem(401, problem(401, 'invalid_token'), null, true).hint).toMatch(/not accepted/);
    expect(describeProblem(403, problem(403, 'forbidden'), null, true).hint).toMatch(/another customer/);
    expect(describeProblem(404, problem(404, 'schema_not_found'), null, false).hint).toMatch(/customer id and the schema/);
    expect(describeProblem(422, problem(422, 'component_too_large'), null, false).hint).toMatch(/step ONE/);
    expect(describeProblem(429, problem(429, 'rate_limited'), '7', false).hint).toBe('Try again in 7 s.');
    expect(describeProblem(503, problem(503, 'server_busy'), null, false).hint).toMatch(/request id/);
  });

  test('when a request is invalid, then each error is listed by path', () => {
    const shown = describeProblem(400, problem(400, 'validation_failed', { errors: [{ path: '/body/max_nodes', message: 'must be <= 2000' }] }), null, false);
    expect(shown.errors).toEqual(['/body/max_nodes: must be <= 2000']);
  });

  test('when the answer is not a problem document, then the status is said and nothing is invented', () => {
    const shown = describeProblem(502, undefined, null, false);
    expect(shown.title).toBe('The service answered 502');
    expect(shown.requestId).toBeUndefined();
    expect(networkProblem().title).toBe('The service could not be reached');
  });

  test('when a text would contain the token, then it is blotted out', () => {
    expect(redact('Bearer idl_secret was refused', 'idl_secret')).toBe('Bearer ••• was refused');
    expect(redact('nothing to hide', '')).toBe('nothing to hide');
  });
});
