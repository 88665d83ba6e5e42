// Slow clients cannot take the server from everyone else: MAX_CONNECTIONS caps the open connections, a new
// client past it takes the place of a connection that waits on its client (slow bodies: slow-bodies.test.ts), and
// the header, body and idle timeouts cut what a slow client holds. Run against the real server (`node dist/main.js`,
// built by jest's globalSetup), which applies the settings in serve(). Connections are handled before any store
// is involved, so the SQLite store stands for both.
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
  /** Resolves once the connection is made (the server accepts connections in the order they were made). */
  connected: Promise<void>;
  /** What the server sent before the connection closed ('' when it was closed without an answer). */
  closed: Promise<string>;
  /** True once the connection has closed. */
  isClosed(): boolean;
  /** Resolves once the server has sent text that matches `pattern`. */
  received(pattern: RegExp): Promise<void>;
  write(text: string): void;
  /** Sends the rest and the end of the stream. */
  finish(rest: string): void;
}

/** A raw connection that sends `opening`, then, when given, `trickle` every `everyMs` until it is closed. */
function slowClient(port: number, opening: string, trickle?: { text: string; everyMs: number }): SlowClient {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  let isClosed = false;
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
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
      isClosed = true;
      clearInterval(ticker);
      resolve(received);
    }),
  );
  const receivedMatch = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(received)) return false;
        socket.off('data', check);
        resolve();
        return true;
      };
      if (check()) return;
      socket.on('data', check);
      void closed.then(() => {
        if (!check()) reject(new Error(`the connection closed before ${String(pattern)} arrived; it got: ${JSON.stringify(received)}`));
      });
    });
  return { connected, closed, isClosed: () => isClosed, received: receivedMatch, write, finish: (rest) => socket.end(rest) };
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

/** idlink_connections_dropped_total by reason, from /metrics. */
async function droppedConnections(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Object.fromEntries([...text.matchAll(/^idlink_connections_dropped_total\{reason="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
}

/** A _bulk request whose headers ask for 100 Continue (sent once the server has taken the request) and whose lines come later. */
const bulkOpening = (): string =>
  'POST /v1/acme/node/_bulk HTTP/1.1\r\nHost: x\r\n' +
  `Authorization: Bearer ${ADMIN}\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n` +
  'Expect: 100-continue\r\nConnection: close\r\n\r\n';
const bulkLine = (n: number): string => {
  const line = `${JSON.stringify({ op: 'create', body: { schema: 'member', key: { type: 'member_id', id: `m-${n}` } } })}\n`;
  return `${Buffer.byteLength(line).toString(16)}\r\n${line}\r\n`;
};

const problemCode = (answer: string): unknown => {
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return (JSON.parse(body) as { code?: unknown }).code;
};

describe('slow clients and the connection cap', () => {
  test('when 40 clients send their headers slowly with MAX_CONNECTIONS=20, then 20 are closed without an answer as the others arrive, the others get 408 request_timeout after the header timeout, and a new client is answered', async () => {
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

  test('when three times MAX_CONNECTIONS sockets each hold part of a request line, then each new connection closes the one that has waited longest, a new client gets /healthz, and /metrics counts the connections closed', async () => {
    // The header timeout is far beyond the test: only the connection cap's rule can close these sockets.
    const { base, port } = await start({ MAX_CONNECTIONS: '10', HEADERS_TIMEOUT_MS: '600000' });
    const slow: SlowClient[] = [];
    for (let n = 0; n < 30; n += 1) {
      const client = slowClient(port, 'GET /healthz HT');
      await client.connected;
      slow.push(client);
    }

    const closed = await allWithin(
      slow.slice(0, 20).map((c) => c.closed),
      15000,
      'of the 20 oldest slow connections',
    );
    expect(closed).toEqual(Array.from({ length: 20 }, () => ''));

    expect((await send(base, 'GET', '/healthz')).status).toBe(200);
    // The new client took the place of the oldest slow socket left.
    await allWithin([slow[20]!.closed], 15000, 'oldest slow connection');
    const dropped = await droppedConnections(base);
    // 20 for the slow sockets, 1 for /healthz's connection, and 1 more if /metrics came on a connection of its own.
    expect(dropped.oldest_waiting).toBeGreaterThanOrEqual(21);
    expect(dropped.oldest_waiting).toBeLessThanOrEqual(22);
    expect(dropped.all_busy).toBe(0);
    expect(dropped.unread_answer).toBe(0);
    expect(slow.slice(22).filter((c) => c.isClosed())).toHaveLength(0);
  });

  test('when the cap is reached, then an idle keep-alive connection and a partial request are closed before any bulk request holding a slot, a new connection is closed once every one holds one, and those requests are answered in full', async () => {
    const { base, port } = await start({ MAX_CONNECTIONS: '2', HEADERS_TIMEOUT_MS: '600000' });
    const schema = JSON.stringify({ id_types: [{ type: 'member_id' }] });
    const created = await slowClient(
      port,
      `PUT /v1/acme/schema/member HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${schema.length}\r\nConnection: close\r\n\r\n${schema}`,
    ).closed;
    expect(created).toMatch(/^HTTP\/1\.1 201 /);

    // An idle keep-alive connection: answered once, waiting for its next request.
    const idle = slowClient(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await idle.received(/"status":"ok"/);
    // A request in progress: the server has taken its headers (100 Continue), holds a bulk slot (200) and waits for its lines.
    const first = slowClient(port, bulkOpening());
    await first.received(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    first.write(bulkLine(1));

    // At the cap: the idle connection goes first, then the partial request line.
    const partial = slowClient(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n');
    expect(await allWithin([idle.closed], 15000, 'idle connections')).toEqual([expect.stringMatching(/^HTTP\/1\.1 200 [^]*"status":"ok"\}$/)]);
    const second = slowClient(port, bulkOpening());
    expect(await allWithin([partial.closed], 15000, 'partial requests')).toEqual(['']);
    // Holding a bulk slot, its answer has begun: the service is working for it.
    await second.received(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);

    // Every connection has a request in progress: the new one is closed, without an answer.
    const refused = slowClient(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await allWithin([refused.closed], 15000, 'refused connections')).toEqual(['']);

    // Written, not ended: a client that half-closes its side may have the request's unread body cut by Node.
    first.write(`${bulkLine(2)}0\r\n\r\n`);
    second.write(`${bulkLine(3)}0\r\n\r\n`);
    const [firstAnswer, secondAnswer] = await allWithin([first.closed, second.closed], 15000, 'bulk connections');
    const results = (answer: string) => [...answer.matchAll(/\{"line":(\d+),"status":(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(firstAnswer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(results(firstAnswer!)).toEqual([
      [1, 201],
      [2, 201],
    ]);
    expect(results(secondAnswer!)).toEqual([[1, 201]]);
    expect(await droppedConnections(base)).toEqual({ oldest_waiting: 2, unread_answer: 0, all_busy: 1 });
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
    const opening =
      'POST /v1/acme/node/_bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n';
    const client = slowClient(port, opening);
    // One line every 150 ms, ten lines: about five times the body timeout.
    for (let n = 1; n < 10; n += 1) {
      client.write(chunk(line(n)));
      // Fixed sleep: the body must go on flowing for longer than BODY_TIMEOUT_MS; that time is what the test sends.
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
