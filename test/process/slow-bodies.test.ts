// Slow bodies cannot lock anyone out: a body that brings fewer than BODY_MIN_BYTES in a BODY_RATE_WINDOW_MS is
// cut with 408, and at MAX_CONNECTIONS a new client takes the place of a connection still sending its body, the
// slowest first, as it would of one still sending its headers. Run against the real server (`node dist/main.js`).
// Connections are handled before any store is involved, so the SQLite store stands for both.
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { freshDir, installCleanup, logEntries, startServer } from '../helpers/server-process';
import { waitFor } from '../helpers/settling';

const ADMIN = 'slow-bodies-admin-token-0123456789abcdef';

installCleanup();

function start(settings: Record<string, string>): ReturnType<typeof startServer> {
  const dir = freshDir('idlink-slow-bodies-');
  const env = { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', ...settings };
  return startServer(env, dir);
}

interface RawClient {
  connected: Promise<void>;
  /** What the server sent before the connection closed. */
  closed: Promise<string>;
  isClosed(): boolean;
  write(text: string): void;
}

/** A raw connection from `localAddress` that sends `opening`, then `trickle.text` every `trickle.everyMs` until it is closed. */
function rawClient(port: number, localAddress: string, opening: string, trickle?: { text: string; everyMs: number }): RawClient {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  let received = '';
  let isClosed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  // A connection the server drops is reset: that is an outcome here, not a failure.
  socket.on('error', () => undefined);
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const write = (text: string) => {
    if (socket.writable) socket.write(text);
  };
  write(opening);
  const ticker = trickle ? setInterval(() => write(trickle.text), trickle.everyMs) : undefined;
  const closed = new Promise<string>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      clearInterval(ticker);
      resolve(received);
    }),
  );
  return { connected, closed, isClosed: () => isClosed, write };
}

/** GET /healthz on a connection of its own from `localAddress`: its status, or 0 when it failed or took over `ms`. */
function healthz(port: number, localAddress: string, ms: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', localAddress, agent: false, timeout: ms }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', () => resolve(0));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
  });
}

const problemOf = (answer: string): { status: number; connection: string | undefined; code: unknown; detail: unknown } => {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const problem = JSON.parse(body) as { code?: unknown; detail?: unknown };
  return {
    status: Number(head.split(' ')[1]),
    connection: /\r\nconnection: (\S+)/i.exec(head)?.[1]?.toLowerCase(),
    code: problem.code,
    detail: problem.detail,
  };
};

const SLOW_OPENING = 'POST /v1/acme/_search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 30000\r\n\r\n';

describe('slow request bodies', () => {
  test('when 1,100 sockets from one address send complete POST headers with Content-Length: 30000, then a byte every 2 s, and open a new one for each one closed, then a new client gets /healthz at least 19 times of 20', async () => {
    // MAX_CONNECTIONS=1024 (the default), so the sockets fill the cap. No timeout cuts them while the test runs (a
    // test below shows the pace's): the cap alone has to make room.
    const { server, port } = await start({ BODY_RATE_WINDOW_MS: '600000', BODY_TIMEOUT_MS: '600000' });
    const attackers = new Set<RawClient>();
    let closed = 0;
    let stopped = false;
    const attack = () => {
      const client = rawClient(port, '127.0.0.1', SLOW_OPENING, { text: ' ', everyMs: 2000 });
      attackers.add(client);
      void client.closed.then(() => {
        attackers.delete(client);
        closed += 1;
        // Another in its place a moment later, so that 1,100 stay open, as a determined attacker would.
        if (!stopped) setTimeout(attack, 1000);
      });
      return client;
    };
    try {
      for (let opened = 0; opened < 1100; opened += 100) await Promise.all(Array.from({ length: 100 }, () => attack().connected));
      // The cap is full once the server has closed the sockets past it.
      await waitFor(
        () => `the server to close ${1100 - 1024} sockets (${closed} so far)`,
        () => closed >= 1100 - 1024,
        { timeoutMs: 60_000, everyMs: 50 },
      );

      const statuses: number[] = [];
      for (let probe = 0; probe < 20; probe += 1) statuses.push(await healthz(port, '127.0.0.2', 5000));
      process.stdout.write(`slow bodies: /healthz from a new client ${statuses.filter((s) => s === 200).length} of 20 (${JSON.stringify(statuses)})\n`);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(19);
      expect(server.child.exitCode).toBeNull();
    } finally {
      // The server is killed after the test, which closes the sockets left.
      stopped = true;
    }
  }, 120_000);

  test('when a body brings fewer than BODY_MIN_BYTES in a BODY_RATE_WINDOW_MS, then it is answered 408 request_timeout and its connection closed long before BODY_TIMEOUT_MS; a body at the pace is read whole, however long it takes', async () => {
    const { server, base, port } = await start({ BODY_MIN_BYTES: '1024', BODY_RATE_WINDOW_MS: '1000', BODY_TIMEOUT_MS: '600000' });
    const schema = `{"id_types":[{"type":"member_id"}]}${' '.repeat(8 * 1024)}`;
    // 2 KB every 500 ms: four times the pace, for two windows.
    const paced = rawClient(
      port,
      '127.0.0.1',
      `PUT /v1/acme/schema/member HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: ${schema.length}\r\nConnection: close\r\n\r\n`,
    );
    // A byte every 200 ms: 5 bytes a window.
    const slowStarted = Date.now();
    const slow = rawClient(port, '127.0.0.1', SLOW_OPENING, { text: ' ', everyMs: 200 });
    const slowTook = slow.closed.then(() => Date.now() - slowStarted);
    for (let sent = 0; sent < schema.length; sent += 2048) {
      paced.write(schema.slice(sent, sent + 2048));
      // Fixed sleep: the pace (bytes per window) is what the test sends; no event stands for it.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    const slowAnswer = problemOf(await slow.closed);
    const pacedAnswer = await paced.closed;
    process.stdout.write(`slow bodies: the slow body was answered and closed ${await slowTook} ms after its headers\n`);

    expect(slowAnswer).toEqual({ status: 408, connection: 'close', code: 'request_timeout', detail: expect.stringContaining('fewer than 1024 bytes in 1 s') });
    expect(pacedAnswer).toMatch(/^HTTP\/1\.1 201 /);
    expect((await fetch(`${base}/v1/acme/schema/member`, { headers: { Authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
    expect(logEntries(server).filter((e) => e.message === 'request body too slow')).toHaveLength(1);
    expect(logEntries(server).some((e) => e.message === 'request' && e.method === 'POST' && e.status === 408)).toBe(true);
    expect(server.stderr()).toBe('');
  }, 60_000);
});
