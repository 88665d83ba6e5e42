// Slow readers against large answers: 30 anonymous connections each ask a search whose answer is about 10 MB and
// never read it. Node keeps what a socket does not take until IDLE_TIMEOUT_MS; before RESPONSE_MEMORY_LIMIT the
// service grew by about 305 MB while they held (212 → 516 MB), and 1,024 connections could ask for ten times that.
// Now answers being sent hold at most RESPONSE_MEMORY_LIMIT (the rest are 503 server_busy). Run against the real
// server (`node dist/main.js`), whose RSS Linux reports in /proc.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freshDir, installCleanup, send, startServer } from '../helpers/server-process';
import { waitFor } from '../helpers/settling';

installCleanup();

const CONNECTIONS = 30;
/** Growth of RSS while the connections hold their answers: measured 84-159 MB in nine runs, 305 MB before the bound. */
const GROWTH_BOUND_MB = 230;
const ADMIN = 'answer-memory-admin-token-0123456789';
const SEARCH = JSON.stringify({ match: { from: { schema: 'member', key: { type: 'member_id', id: 'big' } } } });

const rssMb = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** A node of 9,990 devices of 1,000 characters (an answer of about 10 MB), loaded through _bulk. */
async function loadBigNode(base: string): Promise<void> {
  const headers = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' };
  expect(
    (await fetch(`${base}/v1/open/schema/member`, { method: 'PUT', headers, body: JSON.stringify({ id_types: [{ type: 'member_id' }, { type: 'device' }] }) }))
      .status,
  ).toBe(201);
  const lines = [JSON.stringify({ op: 'create', body: { schema: 'member', key: { type: 'member_id', id: 'big' } } })];
  for (let part = 0; part < 10; part += 1) {
    const ids = Array.from({ length: 999 }, (_, i) => ({ type: 'device', id: `${part}-${i}-`.padEnd(1000, 'x') }));
    lines.push(JSON.stringify({ op: 'insert', body: { schema: 'member', key: { type: 'member_id', id: 'big' }, ids } }));
  }
  const res = await fetch(`${base}/v1/open/node/_bulk`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/x-ndjson' },
    body: lines.join('\n'),
  });
  expect((await res.text()).split('\n').filter((l) => l && !l.includes('"status":201'))).toEqual([]);
}

test(`when ${CONNECTIONS} anonymous connections ask for a 10 MB answer and never read it, then the service grows by less than ${GROWTH_BOUND_MB} MB and answers others meanwhile`, async () => {
  const dir = freshDir('idlink-answer-memory-');
  const { server, port, base } = await startServer(
    { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' },
    dir,
  );
  await loadBigNode(base);
  const answer = await fetch(`${base}/v1/open/_search`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: SEARCH });
  expect((await answer.text()).length).toBeGreaterThan(10_000_000);
  const pid = server.child.pid as number;
  const before = rssMb(pid);

  const sockets: net.Socket[] = [];
  for (let i = 0; i < CONNECTIONS; i += 1) {
    const socket = net.connect(port, '127.0.0.1');
    // Paused after one buffer: the socket takes the start of its answer, then nothing more.
    socket.pause();
    socket.read(0);
    socket.on('error', () => undefined);
    socket.write(`POST /v1/open/_search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${SEARCH.length}\r\n\r\n${SEARCH}`);
    sockets.push(socket);
    // Ten at a time, each ten answered (200 being sent, or 503) before the next.
    if (i % 10 === 9) await waitFor('the start of ten answers', () => sockets.every((s) => s.readableLength > 0), { timeoutMs: 60_000, everyMs: 50 });
  }
  const held = rssMb(pid);
  expect((await send(base, 'GET', '/v1/open/schema', ADMIN)).status).toBe(200);
  for (const socket of sockets) socket.destroy();
  process.stdout.write(
    `answer memory attack: RSS ${Math.round(before)} MB before, ${Math.round(held)} MB while ${CONNECTIONS} answers wait for their readers\n`,
  );

  expect(server.child.exitCode).toBeNull();
  expect(held - before).toBeLessThan(GROWTH_BOUND_MB);
}, 120_000);
