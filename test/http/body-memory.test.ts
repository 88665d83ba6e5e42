// What the bodies of ordinary requests may hold together (BODY_MEMORY_LIMIT): a body larger than BODY_MEMORY_LIMIT /
// MAX_CONNECTIONS takes its declared length of the budget before it is read, waits up to 5 s for room, and is
// otherwise refused with 503 server_busy, unread; small bodies are never held back. Through the real app and store.
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { ByteBudget } from '../../src/http/admission';
import { startApp, type TestApp } from '../helpers/app';
import { contractProblems } from '../helpers/contract';
import { putSchema } from '../helpers/factories';
import { id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { waitFor } from '../helpers/settling';

/** 100 KB for all, 10 connections: a body of up to 10,240 bytes is always read; two of 60,000 bytes do not fit together. */
const LIMITS = { BODY_LIMIT: '64kb', BODY_MEMORY_LIMIT: '100kb', MAX_CONNECTIONS: '10' };

/** A create of `key` holding 58 devices of 1,000 characters: about 60,000 bytes, over the always-read 10,240. */
const largeCreate = (key: string): string =>
  JSON.stringify({ schema: 'member', key: id('member_id', key), ids: Array.from({ length: 58 }, (_, i) => id('device', `${key}-${i}-`.padEnd(1000, 'x'))) });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A POST whose body is sent in two steps; `answer` settles with the response, or with status 0 if the connection closed without one. */
function openPost(app: TestApp, path: string, headers: Record<string, string>) {
  const req = http.request(`${app.baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers } });
  const answer = new Promise<Answer>((resolve) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', () => resolve({ status: 0, headers: {}, text: '' }));
  });
  req.flushHeaders();
  return { req, answer, send: (text: string) => void req.write(text), end: (text = '') => void req.end(text) };
}

/** The first part of a body sent now, the rest later: the request holds its share of the budget meanwhile. */
function holdLargeCreate(app: TestApp, customer: string, key: string) {
  const body = largeCreate(key);
  const post = openPost(app, `/v1/${customer}/node/_create`, { 'Content-Length': String(Buffer.byteLength(body)) });
  post.send(body.slice(0, 1000));
  return { ...post, finish: () => post.end(body.slice(1000)) };
}

const nodeIds = (app: TestApp, customer: string, key: string) => app.store.getNodeIds({ customerId: customer, schemaId: 'member', key: id('member_id', key) });

/** What the bodies asked of BODY_MEMORY_LIMIT so far: the moments a client cannot see, watched on the budget itself. */
interface Room {
  /** Bodies that asked for room (those still waiting among them). */
  asked: number;
  granted: number;
  /** Rooms given back. */
  released: number;
}

function watchRoom(): Room {
  const room: Room = { asked: 0, granted: 0, released: 0 };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the budget as `this`
  const take = ByteBudget.prototype.take;
  jest.spyOn(ByteBudget.prototype, 'take').mockImplementation(async function (this: ByteBudget, share: number) {
    room.asked += 1;
    const release = await take.call(this, share);
    if (!release) return undefined;
    room.granted += 1;
    return () => {
      room.released += 1;
      release();
    };
  });
  return room;
}

describe('request bodies hold bounded memory together', () => {
  let app: TestApp;
  let customer: string;
  let room: Room;
  beforeEach(async () => {
    room = watchRoom();
    app = await startApp({ env: LIMITS });
    customer = uniqueCustomer('bodymem');
    await putSchema(app, customer);
  });
  afterEach(async () => {
    await app.close();
    jest.restoreAllMocks();
  });

  test('when a large body holds the room, then another large body waits, is refused with 503 server_busy unread, small bodies are still answered, and once the first is answered a large body gets in', async () => {
    expect(largeCreate('a').length).toBeGreaterThan(55_000);
    expect(largeCreate('a').length).toBeLessThan(64 * 1024);
    const holding = holdLargeCreate(app, customer, 'a');
    await waitFor('the first body to get its room', () => room.granted === 1);

    const started = Date.now();
    const refused = openPost(app, `/v1/${customer}/node/_create`, {});
    refused.end(largeCreate('b'));
    // A small body is not held back while the large ones wait.
    const small = await app.call('POST', `/v1/${customer}/node/_create`, { body: { schema: 'member', key: id('member_id', 'small') } });
    expect(small.status).toBe(201);

    const answer = await refused.answer;
    expect(answer.status).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.headers.connection).toBe('close');
    const problem = JSON.parse(answer.text) as { code: string; detail: string };
    expect(problem.code).toBe('server_busy');
    expect(problem.detail).toContain('BODY_MEMORY_LIMIT');
    expect(
      contractProblems('POST', `/v1/${customer}/node/_create`, { status: 503, headers: answer.headers, body: problem, text: answer.text } as never),
    ).toEqual([]);
    expect(await nodeIds(app, customer, 'b')).toBeUndefined();

    holding.finish();
    expect((await holding.answer).status).toBe(201);
    expect(await nodeIds(app, customer, 'a')).toHaveLength(59);
    const next = openPost(app, `/v1/${customer}/node/_create`, {});
    next.end(largeCreate('c'));
    expect((await next.answer).status).toBe(201);
  }, 20_000);

  test('when a large body waits for room and its client leaves, then its room is not kept: the next large body gets in at once', async () => {
    const holding = holdLargeCreate(app, customer, 'a');
    await waitFor('the first body to get its room', () => room.granted === 1);
    const leaving = holdLargeCreate(app, customer, 'gone');
    await waitFor('the second body to ask for room', () => room.asked === 2);
    leaving.req.destroy();
    // The waiting request gets its room when the first is answered, finds its client gone, and gives it back.
    holding.finish();
    expect((await holding.answer).status).toBe(201);
    await waitFor('both rooms to be given back', () => room.granted === 2 && room.released === 2);
    // Had the leaving request kept its room, this one would wait 5 s and get 503.
    const next = openPost(app, `/v1/${customer}/node/_create`, {});
    next.end(largeCreate('c'));
    expect((await next.answer).status).toBe(201);
    expect(await nodeIds(app, customer, 'gone')).toBeUndefined();
  }, 20_000);

  test('when a body declares no length (chunked), then it takes BODY_LIMIT of the room, so a second large body waits for it', async () => {
    const chunked = openPost(app, `/v1/${customer}/node/_create`, { 'Transfer-Encoding': 'chunked' });
    const body = largeCreate('a');
    chunked.send(body.slice(0, 1000));
    await waitFor('the chunked body to get its room', () => room.granted === 1);
    // 64 KB taken of 100: a 60,000-byte body waits until the chunked one is answered, then gets in.
    const waiting = openPost(app, `/v1/${customer}/node/_create`, {});
    waiting.end(largeCreate('b'));
    await waitFor('the second body to ask for room', () => room.asked === 2);
    expect(room.granted).toBe(1);
    expect(await nodeIds(app, customer, 'b')).toBeUndefined();
    chunked.end(body.slice(1000));
    expect((await chunked.answer).status).toBe(201);
    expect((await waiting.answer).status).toBe(201);
    expect(await nodeIds(app, customer, 'b')).toHaveLength(59);
  }, 20_000);

  test('when a compressed body inflates past the always-read share, then it takes BODY_LIMIT of the room as it inflates, so a second large body waits and is refused 503, and the first is applied once it ends', async () => {
    // About 2 KB of gzip, under the always-read 10,240 bytes, for 60,000 bytes of JSON.
    const gzipped = gzipSync(largeCreate('a'));
    expect(gzipped.length).toBeLessThan(10_240);
    const held = openPost(app, `/v1/${customer}/node/_create`, { 'Content-Encoding': 'gzip', 'Content-Length': String(gzipped.length) });
    // All but the gzip trailer: the whole JSON inflates, and the body never ends until the trailer comes.
    held.req.write(gzipped.subarray(0, -8));
    await waitFor('the inflating body to get its room', () => room.granted === 1);

    const refused = openPost(app, `/v1/${customer}/node/_create`, {});
    refused.end(largeCreate('b'));
    const answer = await refused.answer;
    expect(answer.status).toBe(503);
    expect((JSON.parse(answer.text) as { code: string }).code).toBe('server_busy');
    expect(await nodeIds(app, customer, 'b')).toBeUndefined();

    held.req.end(gzipped.subarray(-8));
    expect((await held.answer).status).toBe(201);
    expect(await nodeIds(app, customer, 'a')).toHaveLength(59);
  }, 20_000);

  test('when a compressed body is sent, then it is inflated and applied; past BODY_LIMIT once inflated it is 413, an encoding not known is 415, and data that does not inflate is 400', async () => {
    const post = async (encoding: string, body: Buffer) => {
      const res = await fetch(`${app.baseUrl}/v1/${customer}/node/_create`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        body,
      });
      const text = await res.text();
      return { status: res.status, code: text ? (JSON.parse(text) as { code?: string }).code : undefined };
    };
    expect(await post('gzip', gzipSync(JSON.stringify({ schema: 'member', key: id('member_id', 'zipped') })))).toEqual({ status: 201, code: undefined });
    expect(await nodeIds(app, customer, 'zipped')).toEqual([id('member_id', 'zipped')]);
    // BODY_LIMIT is 64 KB: 100 KB of JSON, a few hundred bytes of gzip.
    const bomb = gzipSync(JSON.stringify({ schema: 'member', key: id('member_id', 'bomb'), ids: [id('device', 'x'.repeat(100_000))] }));
    expect(await post('gzip', bomb)).toEqual({ status: 413, code: 'payload_too_large' });
    expect(await post('compress', Buffer.from('{}'))).toEqual({ status: 415, code: 'unsupported_media_type' });
    expect(await post('gzip', Buffer.from('not gzip'))).toEqual({ status: 400, code: 'invalid_json' });
    expect(await nodeIds(app, customer, 'bomb')).toBeUndefined();
  });
});
