// What one _bulk request, and all of them together, may hold (docs/bulk-loading.md): a batch is bounded by bytes as
// well as lines, a sender that pauses gets its results and holds no lines, one that stops sending is ended after
// BULK_LINE_TIMEOUT_MS, and past BULK_MEMORY_LIMIT a request gets 503 server_busy with Retry-After.
import http from 'node:http';
import { startApp, type TestApp } from '../helpers/app';
import { contractProblems } from '../helpers/contract';
import { putSchema } from '../helpers/factories';
import { id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { openBulk as openBulkAt } from '../helpers/bulk';

const key = (value: string) => id('member_id', value);
const createLine = (value: string) => `${JSON.stringify({ op: 'create', body: { schema: 'member', key: key(value) } })}\n`;

const openBulk = (app: TestApp, customer: string) => openBulkAt(app.baseUrl, customer);

describe('bulk requests hold bounded memory', () => {
  let app: TestApp;
  let customer: string;
  afterEach(async () => {
    await app.close();
  });

  async function start(env: Record<string, string>): Promise<void> {
    app = await startApp({ env });
    customer = uniqueCustomer('bulkmem');
    await putSchema(app, customer);
  }

  test('when the sender pauses mid-body, then the lines it sent are applied and answered before it goes on', async () => {
    await start({});
    const bulk = openBulk(app, customer);
    bulk.send(createLine('a') + createLine('b'));
    // Before the body ends: the two lines were applied as one batch and their results written.
    expect((await bulk.lines(2)).map((l) => JSON.parse(l))).toEqual([
      { line: 1, status: 201 },
      { line: 2, status: 201 },
    ]);
    expect(await app.store.getNodeIds({ customerId: customer, schemaId: 'member', key: key('b') })).toEqual([key('b')]);
    bulk.send(createLine('c'));
    bulk.end();
    await bulk.closed;
    expect(
      bulk
        .received()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { line: 1, status: 201 },
      { line: 2, status: 201 },
      { line: 3, status: 201 },
    ]);
  });

  test('when lines of a request together pass BULK_BATCH_LIMIT, then they are applied in batches of at most that many bytes, every line answered in order', async () => {
    // 120-byte lines, a 300-byte batch: at most two lines per batch. The batches are seen in the store's calls.
    await start({ BULK_BATCH_LIMIT: '300b', BODY_LIMIT: '1kb' });
    const batchSizes: number[] = [];
    const store = app.store as unknown as { applyNodeWrites: (writes: unknown[]) => Promise<unknown[]> };
    const apply = store.applyNodeWrites.bind(store);
    store.applyNodeWrites = (writes) => {
      batchSizes.push(writes.length);
      return apply(writes);
    };
    const lines = Array.from({ length: 7 }, (_, i) => createLine(`padded-${String(i).padStart(60, '0')}`));
    expect(lines.every((l) => l.length > 100 && l.length < 150)).toBe(true);
    const bulk = openBulk(app, customer);
    bulk.send(lines.join(''));
    bulk.end();
    await bulk.closed;
    expect(
      bulk
        .received()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(lines.map((_l, i) => ({ line: i + 1, status: 201 })));
    expect(Math.max(...batchSizes)).toBeLessThanOrEqual(2);
    expect(batchSizes.reduce((a, b) => a + b, 0)).toBe(7);
  });

  test('when no complete line arrives for BULK_LINE_TIMEOUT_MS, then the lines so far are answered, a last request_timeout line follows, and the connection is closed', async () => {
    await start({ BULK_LINE_TIMEOUT_MS: '500' });
    const bulk = openBulk(app, customer);
    bulk.send(createLine('a') + '{"op":"create","bo');
    await bulk.closed;
    const [first, last, ...rest] = bulk
      .received()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toEqual({ line: 1, status: 201 });
    expect(last).toMatchObject({ status: 408, code: 'request_timeout', type: 'urn:idlink:problem:request_timeout' });
    expect(String(last?.detail)).toContain('after line 1');
    expect(rest).toEqual([]);
    expect(app.logs.some((l) => l.includes('bulk request timed out waiting for a line'))).toBe(true);
  });

  test('when BULK_MEMORY_LIMIT is taken by requests in progress, then another waits, is refused with 503 server_busy and Retry-After, and is let in once one ends', async () => {
    // Each request takes BULK_BATCH_LIMIT + BODY_LIMIT = 2 KB: room for one.
    await start({ BULK_BATCH_LIMIT: '1kb', BODY_LIMIT: '1kb', BULK_MEMORY_LIMIT: '3kb' });
    const holding = openBulk(app, customer);
    holding.send(createLine('a'));
    expect(await holding.status).toBe(200);

    const refused = await new Promise<http.IncomingMessage & { text: string }>((resolve, reject) => {
      const req = http.request(`${app.baseUrl}/v1/${customer}/node/_bulk`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' } }, (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (text += c))
          .on('end', () => resolve(Object.assign(res, { text })));
      });
      req.on('error', reject);
      req.end(createLine('b'));
    });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(refused.text) as { code: string; detail: string };
    expect(body.code).toBe('server_busy');
    expect(contractProblems('POST', `/v1/${customer}/node/_bulk`, { status: 503, headers: refused.headers, body, text: refused.text } as never)).toEqual([]);
    // Nothing of the refused request was applied.
    expect(await app.store.getNodeIds({ customerId: customer, schemaId: 'member', key: key('b') })).toBeUndefined();

    holding.end();
    await holding.closed;
    const next = openBulk(app, customer);
    next.send(createLine('c'));
    next.end();
    await next.closed;
    expect(JSON.parse(next.received().trim())).toEqual({ line: 1, status: 201 });
  }, 20_000);
});
