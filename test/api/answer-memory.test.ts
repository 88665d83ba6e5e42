// What answers being sent may hold together (RESPONSE_MEMORY_LIMIT): an answer larger than RESPONSE_MEMORY_LIMIT /
// MAX_CONNECTIONS takes its size of the budget until its last byte is handed to the operating system; one that
// does not fit is 503 server_busy at once, and small answers are always sent. A search or graph takes its room
// before its answer is built, and one larger than a quarter of the budget is 422 answer_too_large. Through the
// real app and store.
import net from 'node:net';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { contractProblems } from '../helpers/contract';
import { putSchema } from '../helpers/factories';
import { id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { waitFor } from '../helpers/settling';

/** 1 MB for all answers, 10 connections: an answer of up to 104,857 bytes is always sent, none of a search over 262,144. */
const LIMITS = { RESPONSE_MEMORY_LIMIT: '1mb', MAX_CONNECTIONS: '10' };

/** 9,000 devices of 1,000 characters: a search answer of about 9.3 MB, more than loopback's socket buffers take. */
const BIG_IDS = 9_000;
const bigSearch = { match: { from: { schema: 'member', key: id('member_id', 'big') } } };
/** 150 devices of 1,000 characters: an answer of about 155 KB, which takes room (twice its size) before it is built. */
const midSearch = { match: { from: { schema: 'member', key: id('member_id', 'mid') } } };
const midGraph = { match: { from: { schema: 'member', key: id('member_id', 'mid') } } };

async function loadBigNode(app: TestApp, customer: string): Promise<void> {
  const lines = [JSON.stringify({ op: 'create', body: { schema: 'member', key: id('member_id', 'big') } })];
  for (let part = 0; part < BIG_IDS / 900; part += 1) {
    const ids = Array.from({ length: 900 }, (_, i) => id('device', `${part}-${i}-`.padEnd(1000, 'x')));
    lines.push(JSON.stringify({ op: 'insert', body: { schema: 'member', key: id('member_id', 'big'), ids } }));
  }
  const res = await fetch(`${app.baseUrl}/v1/${customer}/node/_bulk`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-ndjson', Authorization: `Bearer ${ADMIN_TOKEN}` },
    body: lines.join('\n'),
  });
  const refused = (await res.text()).split('\n').filter((l) => l && !l.includes('"status":201'));
  expect(refused).toEqual([]);
}

const historyOf = (customer: string, key: string, count: number): string =>
  `/v1/${customer}/node/_history?${new URLSearchParams({ schema: 'member', key_type: 'member_id', key_id: key, count: String(count) }).toString()}`;

/**
 * Asks the big node's history (its inserts with their IDs, about 4.5 MB: larger than the budget, sent when no other
 * answer is) on a raw connection and reads no more than the first 64 KB of the answer (one buffer, then the socket
 * stays paused): Node holds what the socket does not take. Resolves once that first part has come, when the
 * service has taken the answer's room.
 */
async function unreadHistory(app: TestApp, customer: string): Promise<net.Socket> {
  const { port } = new URL(app.baseUrl);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.pause();
  socket.read(0);
  socket.on('error', () => undefined);
  socket.write(`GET ${historyOf(customer, 'big', 5)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`);
  await waitFor('the first part of the answer', () => socket.readableLength > 0, { everyMs: 20 });
  return socket;
}

describe('answers being sent hold bounded memory together', () => {
  let app: TestApp;
  let customer: string;
  beforeAll(async () => {
    app = await startApp({ env: LIMITS });
    customer = uniqueCustomer('answermem');
    await putSchema(app, customer);
    await loadBigNode(app, customer);
    expect(
      (await app.call('POST', `/v1/${customer}/node/_create`, { body: { schema: 'member', key: id('member_id', 'small'), ids: [id('device', 'd')] } })).status,
    ).toBe(201);
    const midIds = Array.from({ length: 150 }, (_, i) => id('device', `mid-${i}-`.padEnd(1000, 'x')));
    expect((await app.call('POST', `/v1/${customer}/node/_create`, { body: { schema: 'member', key: id('member_id', 'mid'), ids: midIds } })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await app.close();
  });

  test('when an unread answer holds the room, then a search or graph that needs room is 503 server_busy before it is built, a small one and a large write are answered, and once the reader leaves they are sent', async () => {
    const reader = await unreadHistory(app, customer);
    expect(reader.read(12)?.toString()).toBe('HTTP/1.1 200');

    for (const [path, body] of [
      [`/v1/${customer}/_search`, midSearch],
      [`/v1/${customer}/_graph`, midGraph],
    ] as const) {
      const refused = await app.call('POST', path, { body });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.body).toMatchObject({ code: 'server_busy' });
      expect(String(refused.body.detail)).toContain('RESPONSE_MEMORY_LIMIT');
      expect(contractProblems('POST', path, refused)).toEqual([]);
    }

    const small = await app.call('POST', `/v1/${customer}/_search`, { body: { match: { from: { schema: 'member', key: id('member_id', 'small') } } } });
    expect(small.status).toBe(200);
    expect(small.body).toEqual({ results: [id('device', 'd'), id('member_id', 'small')], total: 2 });

    // A write's answer is always sent, however large: it was applied. The same rules read back are a read.
    const rules = [{ type: 'device', values: Array.from({ length: 1000 }, (_, i) => `blocked-${i}-`.padEnd(200, 'x')) }];
    const written = await app.call('PUT', `/v1/${customer}/blocklist`, { token: ADMIN_TOKEN, body: { rules } });
    expect(written.status).toBe(200);
    expect(written.text.length).toBeGreaterThan(200_000);
    const readBack = await app.call('GET', `/v1/${customer}/blocklist`, { token: ADMIN_TOKEN });
    expect(readBack.status).toBe(503);
    expect(readBack.body).toMatchObject({ code: 'server_busy' });

    // A page of the big node's history: refused without the page's headers.
    const page = await app.call('GET', historyOf(customer, 'big', 5), { token: ADMIN_TOKEN });
    expect(page.status).toBe(503);
    expect(page.headers.link).toBeUndefined();
    expect(page.headers['x-total-count']).toBeUndefined();

    reader.destroy();
    // The room is given back once Node notices the reader has gone.
    const pageSent = await waitFor('the page to be sent', async () => {
      const res = await app.call('GET', historyOf(customer, 'big', 5), { token: ADMIN_TOKEN });
      return res.status === 200 ? res : undefined;
    });
    expect(pageSent.headers.link).toContain('rel="next"');
    expect(pageSent.headers['x-total-count']).toBe('11');
    expect((await app.call('GET', `/v1/${customer}/blocklist`, { token: ADMIN_TOKEN })).body).toEqual(written.body);
    const sent = await app.call('POST', `/v1/${customer}/_search`, { body: midSearch });
    expect(sent.status).toBe(200);
    expect(sent.body.total).toBe(151);
    const drawn = await app.call('POST', `/v1/${customer}/_graph`, { body: midGraph });
    expect(drawn.status).toBe(200);
    expect(drawn.body.nodes).toHaveLength(1);
  }, 60_000);

  test('when a search or graph answer would be larger than a quarter of the budget, then it is 422 answer_too_large each time, even with nothing else being sent, and a limit that makes it fit is answered', async () => {
    for (const [path, body] of [
      [`/v1/${customer}/_search`, bigSearch],
      [`/v1/${customer}/_graph`, bigSearch],
      [`/v1/${customer}/_search`, bigSearch],
    ] as const) {
      const refused = await app.call('POST', path, { body });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ code: 'answer_too_large' });
      expect(refused.headers['retry-after']).toBeUndefined();
      expect(contractProblems('POST', path, refused)).toEqual([]);
    }
    const limited = await app.call('POST', `/v1/${customer}/_search`, { body: { ...bigSearch, limit: 100 } });
    expect(limited.status).toBe(200);
    expect(limited.body.results).toHaveLength(100);
    expect(limited.body.total).toBe(BIG_IDS + 1);
  }, 60_000);
});

describe('reads from a start that answered large take turns, and never hold up small reads', () => {
  let app: TestApp;
  let customer: string;
  beforeAll(async () => {
    // The default budget: the big node's 9.3 MB answer is sent, and marks its start as one that answers large.
    app = await startApp();
    customer = uniqueCustomer('heavylane');
    await putSchema(app, customer);
    await loadBigNode(app, customer);
    expect(
      (await app.call('POST', `/v1/${customer}/node/_create`, { body: { schema: 'member', key: id('member_id', 'small'), ids: [id('device', 'd')] } })).status,
    ).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await app.close();
  });

  /** The big search on a raw connection that reads only the status line: the read holds its slot while Node sends. */
  async function unreadBigSearch(): Promise<net.Socket> {
    const { port } = new URL(app.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.pause();
    socket.read(0);
    socket.on('error', () => undefined);
    const body = JSON.stringify(bigSearch);
    socket.write(
      `POST /v1/${customer}/_search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await waitFor('the first part of the answer', () => socket.readableLength > 0, { everyMs: 20 });
    return socket;
  }

  test('when a read from such a start is being sent, then another from it waits and is 503 server_busy, a small read is answered meanwhile, and once the first is gone it is answered', async () => {
    const first = await app.call('POST', `/v1/${customer}/_search`, { body: bigSearch });
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(BIG_IDS + 1);

    const reader = await unreadBigSearch();
    expect(reader.read(12)?.toString()).toBe('HTTP/1.1 200');
    let waitingAnswered = false;
    const waiting = app.call('POST', `/v1/${customer}/_search`, { body: bigSearch }).then((res) => {
      waitingAnswered = true;
      return res;
    });
    const small = await app.call('POST', `/v1/${customer}/_search`, { body: { match: { from: { schema: 'member', key: id('member_id', 'small') } } } });
    expect(small.status).toBe(200);
    expect(small.body.total).toBe(2);
    // The small read did not wait behind the large one, which is still waiting for its turn.
    expect(waitingAnswered).toBe(false);
    const refused = await waiting;
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body).toMatchObject({ code: 'server_busy' });
    expect(String(refused.body.detail)).toContain('large answers');
    expect(contractProblems('POST', `/v1/${customer}/_search`, refused)).toEqual([]);

    reader.destroy();
    // The slot is given back once Node notices the reader has gone; until then the read is refused.
    const again = await waitFor('the read to be answered', async () => {
      const res = await app.call('POST', `/v1/${customer}/_search`, { body: bigSearch });
      expect(res.status === 200 || res.status === 503).toBe(true);
      return res.status === 200 ? res : undefined;
    });
    expect(again.body.total).toBe(BIG_IDS + 1);
  }, 60_000);
});
