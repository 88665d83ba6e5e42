// Graceful shutdown of the real server (`node dist/main.js`, built by jest's globalSetup): on SIGTERM or SIGINT
// it stops accepting, finishes the requests in flight within SHUTDOWN_TIMEOUT_MS, closes the store and exits 0.
// Readiness during shutdown is checked in-process, with createApp.
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import request from 'supertest';
import winston from 'winston';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { ADMIN_TOKEN } from '../helpers/app';
import { contractProblems } from '../helpers/contract';
import { freshDir, installCleanup, logEntries, logged, logMessages, send, startServer } from '../helpers/server-process';
import { waitFor } from '../helpers/settling';

const ADMIN = 'shutdown-admin-token-0123456789abcdef';
/** How much earlier than the wall clock a Node timer may fire: it counts from the event loop's cached time, and log timestamps have whole milliseconds. */
const TIMER_SLACK_MS = 5;

installCleanup();

function freshEnv(extra: Record<string, string> = {}): { env: Record<string, string>; dir: string } {
  const dir = freshDir('idlink-shutdown-');
  return { dir, env: { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', ...extra } };
}

/**
 * A POST whose body is sent in two parts, on its own connection: the headers at once, asking for 100 Continue; the
 * first part once the server has answered that it took the request (`taken`); the rest only when `finish()` is called.
 */
function splitPost(port: number, url: string, body: unknown) {
  const text = JSON.stringify(body);
  const half = Math.floor(text.length / 2);
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: url,
    agent: false,
    headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), Connection: 'close', Expect: '100-continue' },
  });
  const taken = new Promise<void>((resolve) =>
    req.once('continue', () => {
      req.write(text.slice(0, half));
      resolve();
    }),
  );
  const response = new Promise<{ status: number | undefined; json: unknown }>((resolve, reject) => {
    req.once('response', (res) => {
      let received = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (received += chunk));
      res.once('end', () => resolve({ status: res.statusCode, json: received ? (JSON.parse(received) as unknown) : undefined }));
      res.once('error', reject);
    });
    req.once('error', reject);
  });
  // Rejections are asserted by the tests that expect them; this keeps an early one from going unhandled.
  response.catch(() => undefined);
  req.flushHeaders();
  return { response, taken, finish: () => req.end(text.slice(half)) };
}

/** Whether a new TCP connection to the port is accepted. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

const schema = { id_types: [{ type: 'member_id' }, { type: 'device' }] };
const inFlightNode = {
  schema: 'member',
  key: { type: 'member_id', id: 'm-in-flight' },
  ids: [{ type: 'device', id: 'd-in-flight' }],
};
const searchInFlightNode = { match: { from: { schema: 'member', key: { type: 'member_id', id: 'm-in-flight' } } } };

describe('graceful shutdown of the process', () => {
  test.each(['SIGTERM', 'SIGINT'] as const)(
    'when %s arrives while a create is still receiving its body, then new connections are refused, the create completes with 201, the process exits 0 after logging "stopped", and a restart finds the node',
    async (signal) => {
      const { env, dir } = freshEnv();
      const first = await startServer(env, dir);
      expect((await send(first.base, 'PUT', '/v1/acme/schema/member', ADMIN, schema)).status).toBe(201);

      const inFlight = splitPost(first.port, '/v1/acme/node/_create', inFlightNode);
      // The server has taken the request (its 100 Continue) and is reading its body when the signal comes.
      await inFlight.taken;
      first.server.child.kill(signal);
      expect(await logged(first.server, 'shutting down')).toMatchObject({ signal });
      // The listener closes right after that line is written.
      await waitFor('new connections to be refused', async () => (await connectOutcome(first.port)) === 'ECONNREFUSED');
      expect(first.server.child.exitCode).toBeNull();

      inFlight.finish();
      expect(await inFlight.response).toEqual({ status: 201, json: {} });
      expect(await first.server.exited).toEqual({ code: 0, signal: null });
      const messages = logMessages(first.server);
      expect(messages).toContain('stopped');
      expect(messages).not.toContain('requests still in flight at the shutdown deadline; closing them');
      expect(messages.indexOf('stopped')).toBe(messages.length - 1);

      const second = await startServer(env, dir);
      expect(await send(second.base, 'POST', '/v1/acme/_search', undefined, searchInFlightNode)).toEqual({
        status: 200,
        json: {
          results: [
            { type: 'device', id: 'd-in-flight' },
            { type: 'member_id', id: 'm-in-flight' },
          ],
          total: 2,
        },
      });
    },
    // Two starts of the real server each: on a busy two-core machine they take longer than jest's default 30 s.
    60_000,
  );

  test('when a request body never completes, then with SHUTDOWN_TIMEOUT_MS=500 the process cuts it off once that deadline has passed, says so, and exits 0', async () => {
    const { env, dir } = freshEnv({ SHUTDOWN_TIMEOUT_MS: '500' });
    const first = await startServer(env, dir);
    expect((await send(first.base, 'PUT', '/v1/acme/schema/member', ADMIN, schema)).status).toBe(201);

    const stuck = splitPost(first.port, '/v1/acme/node/_create', inFlightNode);
    await stuck.taken;
    first.server.child.kill('SIGTERM');
    // The body never completes: without the deadline the process would never exit.
    expect(await first.server.exited).toEqual({ code: 0, signal: null });
    await expect(stuck.response).rejects.toThrow();

    const deadline = 'requests still in flight at the shutdown deadline; closing them';
    const entries = logEntries(first.server);
    const after = entries.slice(entries.findIndex((e) => e.message === 'shutting down'));
    expect(after.map((e) => e.message)).toEqual(['shutting down', deadline, 'stopped']);
    // The deadline is SHUTDOWN_TIMEOUT_MS after the signal, by the server's own clock (a timer never fires early).
    const [signalledAt, cutAt] = after.map((e) => Date.parse(String(e.timestamp)));
    expect((cutAt as number) - (signalledAt as number)).toBeGreaterThanOrEqual(500 - TIMER_SLACK_MS);

    // The cut-off create left nothing behind.
    const second = await startServer(env, dir);
    expect((await send(second.base, 'POST', '/v1/acme/_search', undefined, searchInFlightNode)).json).toEqual({ results: [], total: 0 });
  }, 60_000);
});

describe('readiness during shutdown', () => {
  test('when shutdown has begun, then /readyz answers 503 store_unavailable while /healthz still answers 200', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    const logger = createLogger({ level: 'error', transports: [new winston.transports.Console({ silent: true })], pretty: false });
    let shuttingDown = false;
    const app = createApp({ store, config: loadConfig({ SQLITE_PATH: ':memory:' }), logger, adminToken: ADMIN_TOKEN, isShuttingDown: () => shuttingDown });
    try {
      const before = await request(app).get('/readyz');
      expect({ status: before.status, body: before.body as unknown }).toEqual({ status: 200, body: { status: 'ready' } });

      shuttingDown = true;
      const during = await request(app).get('/readyz');
      expect(during.status).toBe(503);
      expect(during.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect((during.body as { code: string }).code).toBe('store_unavailable');
      expect(contractProblems('GET', '/readyz', during)).toEqual([]);

      const alive = await request(app).get('/healthz');
      expect(alive.status).toBe(200);
    } finally {
      await store.close();
    }
  });
});

describe('npm start', () => {
  const ROOT = path.resolve(__dirname, '../..');

  test('when the npm process of `npm start` gets a plain SIGTERM, then the service stops gracefully and frees its port (no orphan)', async () => {
    const { env, dir } = freshEnv();
    // npm reads its configuration and cache under HOME.
    env.HOME = process.env.HOME ?? dir;
    // --ignore-scripts skips prestart (the build: jest's globalSetup built dist/ already), not start itself. In its
    // own process group, so that the cleanup below can reach an orphan should the signal not pass.
    const npm = await startServer(env, ROOT, { file: 'npm', args: ['run', 'start', '--ignore-scripts', '--silent'], detached: true });
    try {
      expect((await send(npm.base, 'GET', '/healthz')).status).toBe(200);
      npm.server.child.kill('SIGTERM');
      await logged(npm.server, 'stopped', 10_000);
      await npm.server.exited;
      await expect(fetch(`${npm.base}/healthz`)).rejects.toThrow();
    } finally {
      try {
        process.kill(-(npm.server.child.pid as number), 'SIGKILL');
      } catch {
        // the group is gone: nothing was left behind
      }
    }
  });
});
