// An export's memory does not grow with the customer (docs/changes-and-export.md): the real server (SQLite on a
// file) exports a customer of 250,000 nodes, some 30 MB of lines, with a V8 heap bounded to 40 MB
// (--max-old-space-size), where an export that read the customer's nodes whole runs out of heap and ends the process.
// The client reads the lines as they come.
import path from 'node:path';
import { importMadeUp } from '../helpers/export-body';
import { freshDir, installCleanup, MAIN, START_FLAGS, startServer } from '../helpers/server-process';

installCleanup();

const ADMIN = 'export-admin-token-0123456789abcdef';
const NODES = 250_000;
const HEAP_MB = 40;
const settingsFor = (file: string): Record<string, string> => ({ PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: file, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' });

test(`when a customer of ${NODES.toLocaleString('en')} nodes is exported by a server whose heap is ${HEAP_MB} MB, then every line comes, and the server lives on`, async () => {
  const dir = freshDir('export-memory');
  const file = path.join(dir, 'idlink.sqlite');
  const loading = await startServer(settingsFor(file), dir);
  await importMadeUp(loading.base, 'large', NODES, ADMIN);
  loading.server.child.kill('SIGTERM');
  await loading.server.exited;

  const bounded = await startServer(settingsFor(file), dir, { file: process.execPath, args: [...START_FLAGS, `--max-old-space-size=${HEAP_MB}`, MAIN] });
  const res = await fetch(`${bounded.base}/v1/large/_export?history=true`, { headers: { Authorization: `Bearer ${ADMIN}` } });
  expect(res.status).toBe(200);
  let bytes = 0;
  let lines = 0;
  let last = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body ?? []) {
    const text = last + decoder.decode(chunk, { stream: true });
    const parts = text.split('\n');
    last = parts.pop() ?? '';
    lines += parts.length;
    bytes += chunk.byteLength;
  }
  process.stdout.write(`export of ${NODES} nodes with a ${HEAP_MB} MB heap: ${lines} lines, ${(bytes / 1e6).toFixed(1)} MB\n`);
  expect(bytes).toBeGreaterThan(HEAP_MB * 1e6 * 0.5);
  expect(lines).toBe(NODES + 6);
  expect(bounded.server.child.exitCode).toBeNull();
  expect((await fetch(`${bounded.base}/readyz`)).status).toBe(200);
}, 120_000);
