// Text that is not well-formed Unicode: a JSON escape can spell a lone UTF-16 surrogate ("\ud800"), which no
// store can keep. Wherever a client's string enters (bodies, bulk lines, path, query), it is refused with 400
// validation_failed naming where it is, the answer never repeats it, and nothing changes.
import request from 'supertest';
import { postBulk } from '../helpers/bulk';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { errorPaths, expectProblem, id, storedIds, uniqueCustomer } from '../helpers/builders-nodesearch';
import { contractProblems } from '../helpers/contract';
import { asMapi, buildButton, buildDelivery, buildMessage, listPage } from '../helpers/deliveries';
import { buildNode, issueToken, putSchema } from '../helpers/factories';

const HIGH = '\ud800';
const LOW = '\udc00';

/** Neither the escape nor the character itself, in any case. */
function expectNoEcho(text: string): void {
  expect(text.isWellFormed()).toBe(true);
  expect(text.toLowerCase()).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/);
}

function expectBrokenUnicode(res: request.Response, paths: string[]): void {
  expectProblem(res, 400, 'validation_failed');
  expect(errorPaths(res).sort()).toEqual([...paths].sort());
  for (const e of (res.body as { errors: Array<{ message: string }> }).errors) expect(e.message).toMatch(/well-formed Unicode/);
  expectNoEcho(res.text);
}

describe('text that is not well-formed Unicode', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  async function customerWithSchema(): Promise<string> {
    const customer = uniqueCustomer('utf16');
    await putSchema(app, customer);
    return customer;
  }

  test('when an ID value holds a lone high surrogate, then 400 at its path and no node is stored', async () => {
    const customer = await customerWithSchema();
    const res = await app.call('POST', `/v1/${customer}/node/_create`, { body: buildNode({ key: id('member_id', `m${HIGH}`) }) });
    expectBrokenUnicode(res, ['/body/key/id']);
    expect(await storedIds(app, customer, id('member_id', `m${HIGH}`))).toBeUndefined();
    expect(await storedIds(app, customer, id('member_id', 'm\ufffd'))).toBeUndefined();
  });

  test('when two held IDs hold lone low surrogates, then both are listed and nothing is stored', async () => {
    const customer = await customerWithSchema();
    const body = buildNode({ ids: [id('device', 'ok'), id('device', `a${LOW}b`), id('cookie', LOW)] });
    const res = await app.call('POST', `/v1/${customer}/node/_create`, { body });
    expectBrokenUnicode(res, ['/body/ids/1/id', '/body/ids/2/id']);
    expect(await storedIds(app, customer, id('member_id', 'm-1'))).toBeUndefined();
  });

  test('when a field name holds a lone surrogate, then 400 at its object, without repeating the name', async () => {
    const customer = await customerWithSchema();
    const res = await app.call('POST', `/v1/${customer}/node/_create`, { body: { ...buildNode(), key: { type: 'member_id', id: 'm-1', [`x${HIGH}`]: 1 } } });
    expectBrokenUnicode(res, ['/body/key']);
    expect(await storedIds(app, customer, id('member_id', 'm-1'))).toBeUndefined();
  });

  test('when a search condition holds a lone surrogate, then 400 at its path', async () => {
    const customer = await customerWithSchema();
    const res = await app.call('POST', `/v1/${customer}/_search`, { body: { match: { from: { where: id('device', `d${HIGH}`) } } } });
    expectBrokenUnicode(res, ['/body/match/from/where/id']);
  });

  test('when a schema declares a type name with a lone surrogate, then 400 says so and no schema is stored', async () => {
    const customer = uniqueCustomer('utf16');
    const res = await app.call('PUT', `/v1/${customer}/schema/member`, { token: ADMIN_TOKEN, body: { id_types: [{ type: `t${LOW}` }] } });
    expectBrokenUnicode(res, ['/body/id_types/0/type']);
    expect((await app.call('GET', `/v1/${customer}/schema`, { token: ADMIN_TOKEN })).body).toEqual([]);
  });

  test('when a token label holds a lone surrogate, then 400 and no token is issued', async () => {
    const customer = uniqueCustomer('utf16');
    const res = await app.call('POST', `/v1/${customer}/token`, { token: ADMIN_TOKEN, body: { kind: 'mapi', label: `ops ${HIGH}` } });
    expectBrokenUnicode(res, ['/body/label']);
    expect((await app.call('GET', `/v1/${customer}/token`, { token: ADMIN_TOKEN })).body).toEqual([]);
  });

  test('when delivery texts hold lone surrogates, then 400 at each, and no delivery is stored', async () => {
    const customer = uniqueCustomer('utf16');
    const { token } = await issueToken(app, customer, 'mapi');
    const body = buildDelivery({ name: `n${HIGH}`, message: [buildMessage({ title: LOW, buttons: [buildButton({ name: `b${HIGH}x` })] })] });
    const res = await app.call('POST', '/v1/delivery', asMapi(token, body));
    expectBrokenUnicode(res, ['/body/name', '/body/message/0/title', '/body/message/0/buttons/0/name']);
    expect((await listPage(app, token)).items).toEqual([]);
  });

  test('when a delivery replacement holds a lone surrogate, then 400 and the delivery stays as it was', async () => {
    const customer = uniqueCustomer('utf16');
    const { token } = await issueToken(app, customer, 'mapi');
    const created = (await app.call('POST', '/v1/delivery', asMapi(token, buildDelivery()))).body as { delivery_id: number };
    const res = await app.call('PUT', `/v1/delivery/${created.delivery_id}`, asMapi(token, buildDelivery({ name: `renamed ${LOW}` })));
    expectBrokenUnicode(res, ['/body/name']);
    expect((await app.call('GET', `/v1/delivery/${created.delivery_id}`, asMapi(token))).body).toEqual(created);
  });

  test('when one bulk line holds a lone surrogate, then that line gets 400 at its path and the others are applied', async () => {
    const customer = await customerWithSchema();
    const lines = [
      JSON.stringify({ op: 'create', body: buildNode({ key: id('member_id', 'a') }) }),
      JSON.stringify({ op: 'create', body: buildNode({ key: id('member_id', `b${HIGH}`) }) }),
      JSON.stringify({ op: 'create', body: buildNode({ key: id('member_id', 'c') }), [`x${LOW}`]: 1 }),
      JSON.stringify({ op: 'create', body: buildNode({ key: id('member_id', 'd') }) }),
    ];
    const res = await postBulk(app.baseUrl, customer, lines.join('\n'));
    const text = res.text;
    expect(res.status).toBe(200);
    expectNoEcho(text);
    const results = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { line: number; status: number; code?: string; errors?: Array<{ path: string }> });
    expect(results.map((r) => [r.line, r.status, r.code, r.errors?.map((e) => e.path)])).toEqual([
      [1, 201, undefined, undefined],
      [2, 400, 'validation_failed', ['/line/body/key/id']],
      [3, 400, 'validation_failed', ['/line']],
      [4, 201, undefined, undefined],
    ]);
    expect(await storedIds(app, customer, id('member_id', 'a'))).toEqual([id('device', 'd-1'), id('member_id', 'a')]);
    expect(await storedIds(app, customer, id('member_id', 'd'))).toEqual([id('device', 'd-1'), id('member_id', 'd')]);
    expect(await storedIds(app, customer, id('member_id', 'c'))).toBeUndefined();
  });

  test('when a path or query carries the UTF-8 bytes of a surrogate, then 400 and the answer does not repeat them', async () => {
    const { token } = await issueToken(app, uniqueCustomer('utf16'), 'mapi');
    const inPath = await request(app.baseUrl).get('/v1/%ED%A0%80/schema').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(contractProblems('GET', '/v1/x/schema', inPath)).toEqual([]);
    expectProblem(inPath, 400, 'validation_failed');
    expectNoEcho(inPath.text);
    const inQuery = await app.call('GET', '/v1/delivery?page=%ED%A0%80', asMapi(token));
    expectProblem(inQuery, 400, 'validation_failed');
    expectNoEcho(inQuery.text);
  });

  test('when text holds well-formed characters beyond the BMP (surrogate pairs), then they are stored intact', async () => {
    const customer = await customerWithSchema();
    const emoji = 'm-\u{1F600}-\u{10FFFF}';
    const res = await app.call('POST', `/v1/${customer}/node/_create`, { body: buildNode({ key: id('member_id', emoji) }) });
    expect(res.status).toBe(201);
    expect(await storedIds(app, customer, id('member_id', emoji))).toEqual([id('device', 'd-1'), id('member_id', emoji)]);
  });

  test('when a body nests arrays 100,000 deep, then 400, not a fault', async () => {
    const customer = await customerWithSchema();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await request(app.baseUrl)
      .post(`/v1/${customer}/node/_create`)
      .set('Content-Type', 'application/json')
      .send(`{"schema":"member","key":{"type":"member_id","id":"m-1"},"ids":${deep}}`);
    expectProblem(res, 400, 'validation_failed');
  });
});
