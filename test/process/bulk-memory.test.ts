// The _bulk memory attack (docs/bulk-loading.md), at a scale that fits CI: twelve requests at once, each streaming
// one-megabyte lines, without a token. All bulk requests together hold at most BULK_MEMORY_LIMIT of lines, where
// unbounded each would hold up to 500 parsed lines. Run against the real server
// (`node dist/main.js`), whose peak RSS (VmHWM) Linux reports in /proc. Each request is of its own customer (which has
// a schema) and client address, since one customer or address holds at most a quarter of the slots.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freshDir, installCleanup, send, startServer } from '../helpers/server-process';
import { waitFor } from '../helpers/settling';

installCleanup();

/** Heavy lines the attack has written so far, all requests together. */
let linesSent = 0;

const REQUESTS = 12;
const LINES_PER_REQUEST = 60;
/**
 * How far this attack may raise the server's peak RSS with the default settings (docs/bulk-loading.md). V8 lets
 * garbage grow to about four times what is live before a full collection, so what each request keeps counts about
 * four times: the bound holds because a request keeps only the parsed lines of its batch, not its last line's text
 * as it reads the next. Measured: 120–190 MB. Unbounded, each request would hold up to 500 parsed lines (gigabytes).
 * The bound is on the growth, not on the peak, since the idle server's RSS is not the attack's: it starts some 25 MB
 * higher on Node 24 than on Node 20, and higher on a busy machine.
 */
const RSS_GROWTH_BOUND_MB = 230;

/** A valid create line of about 0.93 MB: 1,000 IDs of 900 characters, for a schema that does not exist (so nothing is written; the customer has another). */
const HEAVY_LINE = `${JSON.stringify({
  op: 'create',
  body: {
    schema: 'absent',
    key: { type: 'member_id', id: 'k' },
    ids: Array.from({ length: 1000 }, (_, i) => ({ type: 'device', id: `${i}`.padEnd(900, 'x') })),
  },
})}\n`;

/** Streams `lines` heavy lines as one _bulk request (waiting for drain, as a real sender would); resolves with the status and the number of result lines. */
function heavyBulk(port: number, customer: string, localAddress: string, lines: number): Promise<{ status: number; results: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { port, host: '127.0.0.1', localAddress, method: 'POST', path: `/v1/${customer}/node/_bulk`, headers: { 'Content-Type': 'application/x-ndjson' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, results: text.split('\n').filter((l) => l.startsWith('{"line"')).length }));
      },
    );
    req.on('error', reject);
    const write = async () => {
      for (let i = 0; i < lines; i += 1) {
        if (!req.write(HEAVY_LINE)) await new Promise((resolveDrain) => req.once('drain', resolveDrain));
        linesSent += 1;
      }
      req.end();
    };
    write().catch(reject);
  });
}

/** Peak resident memory of a process, in MB. */
function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]);
  return kb / 1024;
}

test(`when ${REQUESTS} anonymous _bulk requests stream ${LINES_PER_REQUEST} one-megabyte lines each at once, then the server survives, its peak RSS grows by less than ${RSS_GROWTH_BOUND_MB} MB, and other requests are answered`, async () => {
  expect(HEAVY_LINE.length).toBeGreaterThan(900_000);
  expect(HEAVY_LINE.length).toBeLessThan(1024 * 1024);
  const dir = freshDir('idlink-bulk-memory-');
  const { server, port, base } = await startServer(
    { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: 'bulk-memory-admin-token-0123456789', LOG_LEVEL: 'info' },
    dir,
  );
  const pid = server.child.pid as number;
  const before = peakRssMb(pid);

  for (let i = 0; i < REQUESTS; i += 1) {
    expect(
      (await send(base, 'PUT', `/v1/attacker-${i}/schema/member`, 'bulk-memory-admin-token-0123456789', { id_types: [{ type: 'member_id' }] })).status,
    ).toBe(201);
  }
  const attack = Array.from({ length: REQUESTS }, (_, i) => heavyBulk(port, `attacker-${i}`, `127.0.0.${10 + i}`, LINES_PER_REQUEST));
  // While the attack runs, other clients are answered: one at each sixth of its lines.
  const others: number[] = [];
  const attackLines = REQUESTS * LINES_PER_REQUEST;
  for (let i = 1; i <= 5; i += 1) {
    await waitFor(`${i}/6 of the attack's lines`, () => linesSent >= (i * attackLines) / 6, { timeoutMs: 60_000, everyMs: 20 });
    others.push((await send(base, 'GET', '/v1/someone/schema', 'bulk-memory-admin-token-0123456789')).status);
  }
  const outcomes = await Promise.all(attack);

  expect(others).toEqual([200, 200, 200, 200, 200]);
  // Every request ran (16 fit in the default BULK_MEMORY_LIMIT) and every line got its answer: the schema is absent.
  expect(outcomes).toEqual(Array.from({ length: REQUESTS }, () => ({ status: 200, results: LINES_PER_REQUEST })));
  expect(server.child.exitCode).toBeNull();
  const peak = peakRssMb(pid);
  process.stdout.write(`bulk memory attack: peak RSS ${Math.round(before)} MB before, ${Math.round(peak)} MB after\n`);
  expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND_MB);
}, 120_000);
