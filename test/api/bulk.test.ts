// POST /v1/{customer_id}/node/_bulk: NDJSON lines with the single endpoints' bodies and rules.
import { gzipSync } from 'node:zlib';
import { bulkChecked } from '../helpers/bulk';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { issueToken, putSchema } from '../helpers/factories';
import { id, uniqueCustomer } from '../helpers/builders-nodesearch';

const key = (value: string) => id('member_id', value);
const line = (op: string, body: object) => JSON.stringify({ op, body });

describe('bulk node operations', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ env: { BODY_LIMIT: '2kb' } });
  });
  afterAll(() => app.close());

  const bulk = (customer: string, lines: string[], token?: string, contentType = 'application/x-ndjson', on: TestApp = app) =>
    bulkChecked(on.baseUrl, customer, lines.join('\n'), { token, contentType });

  const stored = (customer: string, value: string) => app.store.getNodeIds({ customerId: customer, schemaId: 'member', key: key(value) });

  test('when every line is valid, then each gets the status of its single endpoint, in order, and all are applied', async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    const { res, results } = await bulk(customer, [
      line('create', { schema: 'member', key: key('a'), ids: [id('device', 'd1')] }),
      line('create', { schema: 'member', key: key('b') }),
      line('insert', { schema: 'member', key: key('b'), ids: [id('device', 'd1')] }),
      line('upsert', { schema: 'member', key: key('a'), where: id('device', 'd1'), set: id('device', 'd2') }),
      line('delete', { schema: 'member', key: key('b'), where: id('device', 'd1') }),
    ]);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(results).toEqual([
      { line: 1, status: 201 },
      { line: 2, status: 201 },
      { line: 3, status: 201 },
      { line: 4, status: 200 },
      { line: 5, status: 204 },
    ]);
    expect(await stored(customer, 'a')).toEqual([id('device', 'd2'), key('a')]);
    expect(await stored(customer, 'b')).toEqual([key('b')]);
  });

  test('when some lines are bad, then they get their problem code and the other lines are still applied', async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    const { results } = await bulk(customer, [
      line('create', { schema: 'member', key: key('a') }),
      '{not json',
      line('create', { schema: 'member', key: key('a') }),
      JSON.stringify({ op: 'rekey', body: {} }),
      line('create', { schema: 'member', key: key('c'), extra: 1 }),
      line('insert', { schema: 'member', key: key('zz'), ids: [id('device', 'x')] }),
      line('create', { schema: 'nope', key: key('d') }),
      line('create', { schema: 'member', key: id('passport', 'p') }),
      line('insert', { schema: 'member', key: key('a'), ids: [id('device', 'x'), id('device', 'x')] }),
      line('create', { schema: 'member', key: key('e') }),
    ]);
    expect(results.map((r) => [r.line, r.status, r.code])).toEqual([
      [1, 201, undefined],
      [2, 400, 'invalid_json'],
      [3, 409, 'node_exists'],
      [4, 400, 'validation_failed'],
      [5, 400, 'validation_failed'],
      [6, 404, 'node_not_found'],
      [7, 404, 'schema_not_found'],
      [8, 400, 'key_type_not_in_schema'],
      [9, 400, 'validation_failed'],
      [10, 201, undefined],
    ]);
    expect(results[4]?.errors).toEqual([{ path: '/body/extra', message: 'is not an allowed field' }]);
    expect(await stored(customer, 'a')).toEqual([key('a')]);
    expect(await stored(customer, 'e')).toEqual([key('e')]);
    expect(await stored(customer, 'c')).toBeUndefined();
  });

  test('when a line involves a secure type without a token, then only that line is 401; with the token it is applied', async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    const secureLine = line('create', { schema: 'member', key: key('s'), ids: [id('email', 'secret@example.com')] });
    const anonymous = await bulk(customer, [secureLine, line('create', { schema: 'member', key: key('open') })]);
    expect(anonymous.results.map((r) => [r.status, r.code])).toEqual([
      [401, 'authentication_required'],
      [201, undefined],
    ]);
    expect(await stored(customer, 's')).toBeUndefined();
    const { token } = await issueToken(app, customer);
    const authenticated = await bulk(customer, [secureLine], token);
    expect(authenticated.results).toEqual([{ line: 1, status: 201 }]);
    expect(await stored(customer, 's')).toEqual([id('email', 'secret@example.com'), key('s')]);
  });

  test('when the token is unknown or of another customer, then the whole request is refused and nothing runs', async () => {
    const customer = uniqueCustomer('bulk');
    const other = uniqueCustomer('bulk');
    await putSchema(app, customer);
    const { token: othersToken } = await issueToken(app, other);
    const lines = [line('create', { schema: 'member', key: key('a') })];
    const unknown = await bulk(customer, lines, 'idl_bearer_never-issued-token-0123456789abcdef');
    expect(unknown.res.status).toBe(401);
    const foreign = await bulk(customer, lines, othersToken);
    expect(foreign.res.status).toBe(403);
    expect(await stored(customer, 'a')).toBeUndefined();
  });

  test('when a line is longer than BODY_LIMIT, then that line is 413 and the next line still runs', async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    const long = line('create', { schema: 'member', key: key('big'), ids: [id('device', 'x'.repeat(1000)), id('cookie', 'y'.repeat(1020))] });
    expect(Buffer.byteLength(long)).toBeGreaterThan(2048);
    const { results } = await bulk(customer, [long, line('create', { schema: 'member', key: key('small') })]);
    expect(results.map((r) => [r.line, r.status, r.code])).toEqual([
      [1, 413, 'payload_too_large'],
      [2, 201, undefined],
    ]);
    expect(await stored(customer, 'big')).toBeUndefined();
  });

  test('when blank lines are present, then they get no result and line numbers still count them', async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    const { results } = await bulk(customer, [
      '',
      line('create', { schema: 'member', key: key('a') }),
      '   ',
      line('create', { schema: 'member', key: key('b') }),
      '',
    ]);
    expect(results).toEqual([
      { line: 2, status: 201 },
      { line: 4, status: 201 },
    ]);
  });

  test('when more lines than one batch are sent, then every line is answered in order and applied', async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    const lines = Array.from({ length: 1203 }, (_, i) => line('create', { schema: 'member', key: key(`n${i}`), ids: [id('device', `shared-${i % 7}`)] }));
    lines.splice(600, 0, line('create', { schema: 'member', key: key('n5') }));
    const { results } = await bulk(customer, lines);
    expect(results).toHaveLength(1204);
    expect(results.map((r) => r.line)).toEqual(Array.from({ length: 1204 }, (_, i) => i + 1));
    expect(results.filter((r) => r.status !== 201)).toEqual([expect.objectContaining({ line: 601, status: 409, code: 'node_exists' })]);
    const search = await app.call('POST', `/v1/${customer}/_search`, {
      token: ADMIN_TOKEN,
      body: { match: { from: { where: id('device', 'shared-3') }, step: 'ONE' }, limit: 1 },
    });
    expect(search.body.total).toBe(1 + Math.ceil((1203 - 3) / 7));
  });

  test('when a line names an op every JavaScript object inherits, then that line is 400 and every other line runs, also past one batch', async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
    const lines = [
      ...inherited.map((op) => line(op, { schema: 'member', key: key('never') })),
      ...Array.from({ length: 600 }, (_, i) => line('create', { schema: 'member', key: key(`n${i}`) })),
    ];
    const { res, results } = await bulk(customer, lines);
    expect(res.status).toBe(200);
    expect(results).toHaveLength(606);
    expect(results.slice(0, 6)).toEqual(inherited.map((_, i) => expect.objectContaining({ line: i + 1, status: 400, code: 'validation_failed' })));
    expect(results.slice(6).every((r) => r.status === 201)).toBe(true);
    expect(await stored(customer, 'never')).toBeUndefined();
    expect(await stored(customer, 'n599')).toEqual([key('n599')]);
  });

  test('when the request fails on our side after results have started, then a last problem line says where it stopped, the stream closes, and the log says why with the request id', async () => {
    // A store whose second bulk batch fails with an error that is no DomainError: a fault of ours.
    const broken = await startApp();
    const apply = broken.store.applyNodeWrites.bind(broken.store);
    let calls = 0;
    broken.store.applyNodeWrites = (writes) => {
      calls += 1;
      return calls === 2 ? Promise.reject(new Error('store fault with SELECT secret FROM internals')) : apply(writes);
    };
    try {
      const customer = uniqueCustomer('bulk');
      await putSchema(broken, customer);
      const lines = Array.from({ length: 700 }, (_, i) => line('create', { schema: 'member', key: key(`n${i}`) }));
      const { res, results } = await bulk(customer, lines, undefined, undefined, broken);
      const answered = results as unknown as Array<Record<string, unknown>>;
      expect(answered).toHaveLength(501);
      expect(answered.slice(0, 500).every((r) => r.status === 201)).toBe(true);
      const requestId = String(res.headers['x-request-id']);
      expect(answered[500]).toEqual({
        type: 'urn:idlink:problem:internal_error',
        title: expect.any(String),
        status: 500,
        code: 'internal_error',
        detail: expect.stringContaining('stopped after line 500'),
        request_id: requestId,
      });
      expect(JSON.stringify(answered[500])).not.toContain('SELECT');
      expect(await broken.store.getNodeIds({ customerId: customer, schemaId: 'member', key: key('n600') })).toBeUndefined();
      const logged = broken.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.message === 'bulk request failed');
      expect(logged).toEqual([expect.objectContaining({ level: 'error', request_id: requestId, answered_through_line: 500, error: 'Error' })]);
      expect(broken.logs.some((l) => l.includes('secret'))).toBe(false);
      // The service still answers.
      expect((await broken.call('GET', '/healthz')).status).toBe(200);
    } finally {
      await broken.close();
    }
  });

  test('when the body is not NDJSON, then 415 and nothing runs', async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    const { res } = await bulk(customer, [line('create', { schema: 'member', key: key('a') })], undefined, 'text/plain');
    expect(res.status).toBe(415);
    expect(await stored(customer, 'a')).toBeUndefined();
  });

  test("when the lines are sent with Content-Encoding gzip, then they are inflated and each gets its result, and a line over BODY_LIMIT once inflated is that line's 413", async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    // 3 KB of one line, over BODY_LIMIT (2 KB) once inflated, though its gzip is far smaller.
    const long = line('create', { schema: 'member', key: key('long'), ids: [id('device', 'x'.repeat(3000))] });
    const body = gzipSync([line('create', { schema: 'member', key: key('a') }), long, line('create', { schema: 'member', key: key('b') })].join('\n'));
    expect(body.length).toBeLessThan(2048);
    const { res, results } = await bulkChecked(app.baseUrl, customer, body, { contentEncoding: 'gzip' });
    expect(res.status).toBe(200);
    expect(results).toEqual([{ line: 1, status: 201 }, expect.objectContaining({ line: 2, status: 413, code: 'payload_too_large' }), { line: 3, status: 201 }]);
    expect(await stored(customer, 'a')).toEqual([key('a')]);
    expect(await stored(customer, 'long')).toBeUndefined();
  });

  test('when the lines are sent with another Content-Encoding, then 415 and nothing runs', async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    for (const encoding of ['deflate', 'br', 'gzip, gzip']) {
      const { res } = await bulkChecked(app.baseUrl, customer, gzipSync(line('create', { schema: 'member', key: key('a') })), { contentEncoding: encoding });
      expect(res.status).toBe(415);
      expect((res.body as { code: string }).code).toBe('unsupported_media_type');
    }
    expect(await stored(customer, 'a')).toBeUndefined();
  });

  test('when a gzip body is not valid gzip, then the answer ends with a malformed_request line and no later line is applied', async () => {
    const customer = uniqueCustomer('bulk');
    await putSchema(app, customer);
    const good = gzipSync(`${line('create', { schema: 'member', key: key('a') })}\n`);
    const { res } = await bulkChecked(app.baseUrl, customer, Buffer.concat([good.subarray(0, 20), Buffer.from('not gzip at all, not gzip at all')]), {
      contentEncoding: 'gzip',
    });
    expect(res.status).toBe(200);
    const last = JSON.parse(res.text.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(last).toMatchObject({ status: 400, code: 'malformed_request', type: 'urn:idlink:problem:malformed_request' });
    expect(String(last.detail)).toContain('not valid gzip');
  });
});
