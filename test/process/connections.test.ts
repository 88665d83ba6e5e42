// Slow clients cannot take the server from everyone else: MAX_CONNECTIONS caps the open connections, and the
// header, body and idle timeouts cut what a slow client holds, so new clients are answered again. Run against
// the real server (`node dist/main.js`, built by jest's globalSetup), which applies the settings in serve().
import net from 'node:net';
import path from 'node:path';
import { freshDir, installCleanup, logEntries, send, startServer } from '../helpers/server-process';

const ADMIN = 'connections-admin-token-0123456789abcdef';

installCleanup();

/** The real server on a fresh SQLite file, with `settings` on top of the defaults. */
function start(settings: Record<string, string>): ReturnType<typeof startServer> {
  const dir = freshDir('idlink-connections-');
  const env = { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', ...settings };
  return startServer(env, dir);
}

interface SlowClient {
  /** What the server sent before the connection closed ('' when it was closed without an answer). */
  closed: Promise<string>;
  write(text: string): void;
  /** Sends the rest and the end of the stream. */
  finish(rest: string): void;
}

/** A raw connection that sends `opening`, then, when given, `trickle` every `everyMs` until it is closed. */
function slowClient(port: number, opening: string, trickle?: { text: string; everyMs: number }): SlowClient {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  // A connection the server drops at once is reset: that is an outcome here, not a test failure.
  socket.on('error', () => undefined);
  socket.write(opening);
  const write = (text: string) => {
    if (socket.writable) socket.write(text);
  };
  const ticker = trickle ? setInterval(() => write(trickle.text), trickle.everyMs) : undefined;
  const closed = new Promise<string>((resolve) =>
    socket.once('close', () => {
      clearInterval(ticker);
      resolve(received);
    }),
  );
  return { closed, write, finish: (rest) => socket.end(rest) };
}

/** Waits for every promise, failing (instead of hanging) if some are still pending after `ms`. */
async function allWithin<T>(promises: Array<Promise<T>>, ms: number, what: string): Promise<T[]> {
  let settled = 0;
  for (const p of promises) void p.then(() => (settled += 1));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${promises.length - settled} of ${promises.length} ${what} still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.all(promises), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const problemCode = (answer: string): unknown => {
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return (JSON.parse(body) as { code?: unknown }).code;
};

describe('slow clients and the connection cap', () => {
  test('when 40 clients send their headers slowly with MAX_CONNECTIONS=20, then 20 are turned away at once, the others get 408 request_timeout after the header timeout, and a new client is answered', async () => {
    const { server, port, base } = await start({ MAX_CONNECTIONS: '20', HEADERS_TIMEOUT_MS: '2000' });
    // Each keeps bytes flowing (a longer and longer header), so only a deadline on the headers can stop it.
    const clients = Array.from({ length: 40 }, () => slowClient(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', { text: 'a', everyMs: 100 }));

    const answers = await allWithin(
      clients.map((c) => c.closed),
      20000,
      'slow connections',
    );

    const turnedAway = answers.filter((a) => a === '');
    const timedOut = answers.filter((a) => a !== '');
    expect(turnedAway.length).toBeGreaterThanOrEqual(20);
    expect(timedOut.length).toBeGreaterThanOrEqual(1);
    for (const answer of timedOut) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
      expect(problemCode(answer)).toBe('request_timeout');
    }
    expect(logEntries(server).filter((e) => e.reason === 'ERR_HTTP_REQUEST_TIMEOUT').length).toBe(timedOut.length);

    expect((await send(base, 'GET', '/healthz')).status).toBe(200);
  });

  test('when a search body arrives one byte at a time for longer than BODY_TIMEOUT_MS, then it is answered 408 request_timeout and its connection closed, while other clients are answered', async () => {
    const { server, base, port } = await start({ BODY_TIMEOUT_MS: '1000' });
    const opening = 'POST /v1/acme/_search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n';
    // Whitespace is valid JSON padding: the body is never wrong, only slow.
    const client = slowClient(port, opening, { text: ' ', everyMs: 100 });
    expect((await send(base, 'GET', '/healthz')).status).toBe(200);

    const [answer] = await allWithin([client.closed], 15000, 'slow body connections');

    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(problemCode(answer as string)).toBe('request_timeout');
    expect((await send(base, 'GET', '/healthz')).status).toBe(200);
    expect(logEntries(server).some((e) => e.message === 'request' && e.method === 'POST' && e.status === 408)).toBe(true);
    // The JSON body reader was left waiting on the closed connection: nothing of it reaches stderr.
    expect(server.stderr()).toBe('');
  });

  test('when a request is answered before its body is read (415 for a text body) and the body goes on trickling past BODY_TIMEOUT_MS, then the connection is closed after that answer', async () => {
    const { port } = await start({ BODY_TIMEOUT_MS: '1000' });
    const opening = 'POST /v1/acme/_search HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n';
    const client = slowClient(port, opening, { text: ' ', everyMs: 100 });

    const [answer] = await allWithin([client.closed], 15000, 'slow body connections');

    expect(answer).toMatch(/^HTTP\/1\.1 415 /);
    expect(problemCode(answer as string)).toBe('unsupported_media_type');
  });

  test('when a _bulk body keeps flowing for longer than BODY_TIMEOUT_MS, then it is not cut and every line is answered', async () => {
    const { base, port } = await start({ BODY_TIMEOUT_MS: '300', IDLE_TIMEOUT_MS: '5000' });
    expect((await send(base, 'PUT', '/v1/acme/schema/member', ADMIN, { id_types: [{ type: 'member_id' }] })).status).toBe(201);
    const line = (n: number) => `${JSON.stringify({ op: 'create', body: { schema: 'member', key: { type: 'member_id', id: `m-${n}` } } })}\n`;
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const opening = 'POST /v1/acme/node/_bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n';
    const client = slowClient(port, opening);
    // One line every 150 ms, ten lines: about five times the body timeout.
    for (let n = 1; n < 10; n += 1) {
      client.write(chunk(line(n)));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    client.finish(`${chunk(line(10))}0\r\n\r\n`);

    const [answer] = await allWithin([client.closed], 15000, 'bulk connections');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    const results = [...(answer as string).matchAll(/\{"line":(\d+),"status":(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => [i + 1, 201]));
  });

  test('when a _bulk body stops flowing for longer than IDLE_TIMEOUT_MS, then its connection is closed and the server goes on answering', async () => {
    const { server, base, port } = await start({ IDLE_TIMEOUT_MS: '1000' });
    const opening = 'POST /v1/acme/node/_bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"op"\r\n';
    const client = slowClient(port, opening);

    await allWithin([client.closed], 15000, 'stalled bulk connections');
    expect((await send(base, 'GET', '/healthz')).status).toBe(200);
    expect(server.stderr()).toBe('');
  });
});
