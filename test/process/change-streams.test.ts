// The change feed's streams on the real server (`node dist/main.js`): 1,000 idle event streams, CHANGES_MAX_WAITING's
// default, are held at a bounded cost in memory, one more is refused, a write reaches every one of them, and SIGTERM
// ends them all at once: the server stops without reaching its shutdown deadline, and Node warned of no leak. The
// server's RSS is read from /proc.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freshDir, installCleanup, logMessages, send, startServer } from '../helpers/server-process';

const ADMIN = 'change-streams-admin-token-0123456789abcdef';
const STREAMS = 1000;

installCleanup();

const rssMb = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** A stream of the customer's feed on a raw connection: what the server sent, and waits for text in it. */
function openStream(port: number, customer: string) {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  const waiters = new Set<() => void>();
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
    for (const w of [...waiters]) w();
  });
  let closed = false;
  socket.on('close', () => {
    closed = true;
    for (const w of [...waiters]) w();
  });
  socket.on('error', () => undefined);
  socket.write(`GET /v1/${customer}/_changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`);
  const until = (done: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (done()) {
          waiters.delete(check);
          resolve();
        } else if (closed) {
          waiters.delete(check);
          reject(new Error(`the connection closed before ${what}: ${received}`));
        }
      };
      waiters.add(check);
      check();
    });
  return {
    get received() {
      return received;
    },
    untilHeaders: () => until(() => received.includes('\r\n\r\n'), 'its answer began'),
    untilText: (text: string) => until(() => received.includes(text), `it received ${text}`),
    untilClosed: () => new Promise<void>((resolve) => (closed ? resolve() : socket.once('close', () => resolve()))),
    destroy: () => socket.destroy(),
  };
}

test('1,000 idle streams cost bounded memory, the next is refused, one write reaches them all, and SIGTERM ends them at once', async () => {
  const dir = freshDir('idlink-change-streams-');
  const { server, port, base } = await startServer(
    { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '60000' },
    dir,
  );
  const pid = server.child.pid as number;
  const customer = 'streams';
  expect((await send(base, 'PUT', `/v1/${customer}/schema/member`, ADMIN, { id_types: [{ type: 'member_id' }] })).status).toBe(201);
  const before = rssMb(pid);

  const streams = Array.from({ length: STREAMS }, () => openStream(port, customer));
  await Promise.all(streams.map((s) => s.untilHeaders()));
  expect(streams.filter((s) => s.received.startsWith('HTTP/1.1 200')).length).toBe(STREAMS);
  const held = rssMb(pid);
  // Past CHANGES_MAX_WAITING (1,000 by default): refused, at once.
  const extra = openStream(port, customer);
  await extra.untilHeaders();
  expect(extra.received).toMatch(/^HTTP\/1\.1 503/);
  expect(extra.received).toContain('server_busy');
  extra.destroy();

  expect((await send(base, 'POST', `/v1/${customer}/node/_create`, undefined, { schema: 'member', key: { type: 'member_id', id: 'for-all' } })).status).toBe(
    201,
  );
  await Promise.all(streams.map((s) => s.untilText('"for-all"')));
  console.log(`1,000 idle change streams: server RSS ${before.toFixed(0)} MB before, ${held.toFixed(0)} MB held, ${rssMb(pid).toFixed(0)} MB after a write`);
  // Each stream holds a socket, a response and a waiting call: well under 100 KB each.
  expect(held - before).toBeLessThan(100);

  // SIGTERM: every stream ends, and the server exits without reaching SHUTDOWN_TIMEOUT_MS, which would force the
  // connections closed and say so.
  server.child.kill('SIGTERM');
  await Promise.all(streams.map((s) => s.untilClosed()));
  expect(await server.exited).toEqual({ code: 0, signal: null });
  expect(logMessages(server)).not.toContain('requests still in flight at the shutdown deadline; closing them');
  // Every waiting call listens to the signal that ends them all: past Node's default of ten listeners, that is no leak
  // to warn of on stderr.
  expect(server.stderr()).not.toContain('MaxListenersExceededWarning');
}, 120_000);
