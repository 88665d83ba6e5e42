// Who gets a _bulk slot: a request that could apply nothing, or lacks the token its customer requires, is refused
// before it takes one; one customer, or one client address, holds at most a quarter of them; requests without a
// token hold at most three quarters, so a caller with its token finds one whatever anonymous senders do; and a body that trickles in ends its
// request, so nobody holds a slot by sending a byte, or a short line, now and then.
import { startApp, type TestApp } from '../helpers/app';
import { contractProblems } from '../helpers/contract';
import { issueToken, putSchema } from '../helpers/factories';
import { id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { bulkChecked, openBulk, type OpenBulk } from '../helpers/bulk';

const createLine = (value: string) => `${JSON.stringify({ op: 'create', body: { schema: 'member', key: id('member_id', value) } })}\n`;

/** Each request takes BULK_BATCH_LIMIT + BODY_LIMIT = 2 KB of BULK_MEMORY_LIMIT: 16 KB is 8 slots, 2 for each holder, 6 for anonymous requests together. */
const EIGHT_SLOTS = { BULK_BATCH_LIMIT: '1kb', BODY_LIMIT: '1kb', BULK_MEMORY_LIMIT: '16kb' };

/** A bulk request that has been admitted: its first line answered. */
async function holding(app: TestApp, customer: string, localAddress: string, value: string, token?: string): Promise<OpenBulk> {
  const bulk = openBulk(app.baseUrl, customer, { localAddress, ...(token ? { token } : {}) });
  bulk.send(createLine(value));
  expect(await bulk.status).toBe(200);
  expect(await bulk.lines(1)).toEqual([JSON.stringify({ line: 1, status: 201 })]);
  return bulk;
}

/** A whole bulk request from `localAddress`: its status, headers and text. */
async function bulkFrom(app: TestApp, customer: string, localAddress: string, value: string, token?: string) {
  const bulk = openBulk(app.baseUrl, customer, { localAddress, ...(token ? { token } : {}) });
  bulk.end(createLine(value));
  await bulk.closed;
  return { status: await bulk.status, headers: await bulk.headers, text: bulk.received() };
}

describe('who gets a bulk slot', () => {
  let app: TestApp;
  const open: OpenBulk[] = [];
  afterEach(async () => {
    for (const bulk of open.splice(0)) {
      bulk.end();
      await bulk.closed;
    }
    await app.close();
  });

  test('when the customer has no schema, or requires a token the caller lacks, then the request is refused before it takes a slot, while every slot is held', async () => {
    // One slot, held by a real customer's request.
    app = await startApp({ env: { BULK_BATCH_LIMIT: '1kb', BODY_LIMIT: '1kb', BULK_MEMORY_LIMIT: '2kb' } });
    const customer = uniqueCustomer('slots');
    await putSchema(app, customer);
    open.push(await holding(app, customer, '127.0.0.1', 'a'));

    // Had these waited for a slot, they would get 503 after 5 s.
    const unknown = uniqueCustomer('madeup');
    const { res: noSchema } = await bulkChecked(app.baseUrl, unknown, createLine('b'));
    expect(noSchema.status).toBe(404);
    expect((noSchema.body as { code: string }).code).toBe('schema_not_found');
    // With a token too: no line could be applied.
    const { res: withToken } = await bulkChecked(app.baseUrl, unknown, createLine('b'), { token: (await issueToken(app, unknown)).token });
    expect(withToken.status).toBe(404);

    const strict = uniqueCustomer('strict');
    await putSchema(app, strict);
    expect((await app.call('PUT', `/v1/${strict}/settings`, { token: 'test-admin-token-0123456789abcdef', body: { require_token: true } })).status).toBe(200);
    const { res: anonymous } = await bulkChecked(app.baseUrl, strict, createLine('c'));
    expect(anonymous.status).toBe(401);
    expect((anonymous.body as { code: string }).code).toBe('authentication_required');
    expect(await app.store.getNodeIds({ customerId: strict, schemaId: 'member', key: id('member_id', 'c') })).toBeUndefined();
  }, 20_000);

  test('when one customer, or one client address, holds a quarter of the slots, then its next request gets 503 server_busy at once, and others are still let in', async () => {
    app = await startApp({ env: EIGHT_SLOTS });
    const [first, second] = [uniqueCustomer('fair'), uniqueCustomer('fair')] as [string, string];
    await putSchema(app, first);
    await putSchema(app, second);
    open.push(await holding(app, first, '127.0.0.1', 'a1'), await holding(app, first, '127.0.0.1', 'a2'));

    // The first customer holds 2 of 8, from another address as well.
    const sameCustomer = await bulkFrom(app, first, '127.0.0.2', 'a3');
    expect(sameCustomer.status).toBe(503);
    expect(sameCustomer.headers['retry-after']).toBe('5');
    const problem = JSON.parse(sameCustomer.text) as { code: string; detail: string };
    expect(problem.code).toBe('server_busy');
    expect(problem.detail).toContain('a quarter of the slots');
    expect(
      contractProblems('POST', `/v1/${first}/node/_bulk`, { status: 503, headers: sameCustomer.headers, body: problem, text: sameCustomer.text } as never),
    ).toEqual([]);
    // The address 127.0.0.1 holds 2 of 8, for another customer as well.
    expect((await bulkFrom(app, second, '127.0.0.1', 'b1')).status).toBe(503);
    // Another customer from another address gets in.
    const other = await bulkFrom(app, second, '127.0.0.3', 'b2');
    expect(other.status).toBe(200);
    expect(JSON.parse(other.text.trim())).toEqual({ line: 1, status: 201 });

    // Once one of the first customer's requests ends, it may start another.
    const done = open.shift() as OpenBulk;
    done.end();
    await done.closed;
    expect((await bulkFrom(app, first, '127.0.0.2', 'a3')).status).toBe(200);
    expect(await app.store.getNodeIds({ customerId: first, schemaId: 'member', key: id('member_id', 'a3') })).toEqual([id('member_id', 'a3')]);
  }, 20_000);

  test('when anonymous requests from four addresses to four customers hold every slot they may, then the next anonymous one gets 503 server_busy at once, and callers with their customer token are admitted, from those same addresses too', async () => {
    app = await startApp({ env: EIGHT_SLOTS });
    const customers = [uniqueCustomer('open'), uniqueCustomer('open'), uniqueCustomer('open'), uniqueCustomer('open')];
    for (const customer of customers) await putSchema(app, customer);
    // Six anonymous requests, none past its customer's or address's quarter: three quarters of the 8 slots.
    const anonymous: Array<[number, number]> = [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [0, 2],
      [1, 3],
    ];
    for (const [c, a] of anonymous) open.push(await holding(app, customers[c] as string, `127.0.0.${a}`, `anon-${c}-${a}`));

    // Its customer and address hold one each, but anonymous requests hold all they may.
    const seventh = await bulkFrom(app, customers[2] as string, '127.0.0.5', 'anon-5');
    expect(seventh.status).toBe(503);
    expect(seventh.headers['retry-after']).toBe('5');
    const problem = JSON.parse(seventh.text) as { code: string; detail: string };
    expect(problem.code).toBe('server_busy');
    expect(problem.detail).toContain('send your token');
    expect(
      contractProblems('POST', `/v1/${customers[2] as string}/node/_bulk`, {
        status: 503,
        headers: seventh.headers,
        body: problem,
        text: seventh.text,
      } as never),
    ).toEqual([]);

    // The first customer's own callers, from the address of an anonymous holder, and another's: admitted at once.
    const [first, second] = [await issueToken(app, customers[0] as string), await issueToken(app, customers[1] as string)];
    open.push(await holding(app, customers[0] as string, '127.0.0.1', 'token-1', first.token));
    const other = await bulkFrom(app, customers[1] as string, '127.0.0.2', 'token-2', second.token);
    expect(other.status).toBe(200);
    expect(JSON.parse(other.text.trim())).toEqual({ line: 1, status: 201 });
    expect(await app.store.getNodeIds({ customerId: customers[0] as string, schemaId: 'member', key: id('member_id', 'token-1') })).toEqual([
      id('member_id', 'token-1'),
    ]);
    expect(await app.store.getNodeIds({ customerId: customers[2] as string, schemaId: 'member', key: id('member_id', 'anon-5') })).toBeUndefined();
  }, 60_000);

  test('when a sender sends a short complete line every 300 ms, far fewer bytes than BULK_LINE_MIN_BYTES a window, then each line is answered until a last request_timeout line ends the request within a few windows', async () => {
    app = await startApp({ env: { BULK_LINE_RATE_WINDOW_MS: '1000', BULK_LINE_MIN_BYTES: '1024' } });
    const customer = uniqueCustomer('drip');
    await putSchema(app, customer);
    const bulk = openBulk(app.baseUrl, customer);
    expect(await bulk.status).toBe(200);
    // Two bytes, each a complete line (and not JSON): every line arrives well within a window.
    const started = Date.now();
    const drip = setInterval(() => bulk.send('x\n'), 300);
    try {
      await bulk.closed;
    } finally {
      clearInterval(drip);
    }
    const took = Date.now() - started;
    process.stdout.write(`bulk drip: ended after ${took} ms\n`);
    const answers = bulk
      .received()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const last = answers.pop();
    expect(last).toMatchObject({ status: 408, code: 'request_timeout' });
    expect(String(last?.detail)).toContain('fewer than 1024 bytes in 1 s');
    expect(answers.length).toBeGreaterThan(0);
    for (const [i, answer] of answers.entries()) expect(answer).toMatchObject({ line: i + 1, status: 400, code: 'invalid_json' });
    // The first window is free, the second brings a dozen bytes: scaled up tenfold (10 s windows, a line every 3 s),
    // within 50 s.
    expect(took).toBeLessThan(5000);
  }, 20_000);

  test('when a line being sent brings fewer than BULK_LINE_MIN_BYTES in a window after the first, then the lines so far are answered, a last request_timeout line follows, and the connection is closed', async () => {
    app = await startApp({ env: { BULK_LINE_RATE_WINDOW_MS: '300', BULK_LINE_MIN_BYTES: '1024' } });
    const customer = uniqueCustomer('slow');
    await putSchema(app, customer);
    const bulk = openBulk(app.baseUrl, customer);
    bulk.send(createLine('a'));
    expect(await bulk.lines(1)).toEqual([JSON.stringify({ line: 1, status: 201 })]);
    // A line begun, then a byte of it: far less than 1 KB a window. BULK_LINE_TIMEOUT_MS (60 s) is far off.
    bulk.send('{"op":"create",');
    bulk.send('"');
    await bulk.closed;
    const [first, last, ...rest] = bulk
      .received()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toEqual({ line: 1, status: 201 });
    expect(last).toMatchObject({ status: 408, code: 'request_timeout', type: 'urn:idlink:problem:request_timeout' });
    expect(String(last?.detail)).toContain('fewer than 1024 bytes');
    expect(String(last?.detail)).toContain('after line 1');
    expect(rest).toEqual([]);
  });
});
