// An import that a killed process left half written (the real server, SQLite on a file): the next start undoes it,
// says so in its log, and the customer is empty and can be imported into again.
import http from 'node:http';
import path from 'node:path';
import Database from '../../src/store/sqlite/driver';
import { exportBody } from '../helpers/export-body';
import { freshDir, installCleanup, logged, send, startServer } from '../helpers/server-process';
import { waitFor } from '../helpers/settling';

installCleanup();

const ADMIN = 'import-admin-token-0123456789abcdef';
const settingsFor = (file: string): Record<string, string> => ({ PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: file, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' });

async function exportText(base: string, customer: string): Promise<string> {
  const res = await fetch(`${base}/v1/${customer}/_export?history=true`, { headers: { Authorization: `Bearer ${ADMIN}` } });
  expect(res.status).toBe(200);
  return res.text();
}
const kinds = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { kind: string }).kind);

test('when the process is killed mid-import, then the next start undoes what the import wrote, and the customer takes the import again', async () => {
  const dir = freshDir('import-restart');
  const file = path.join(dir, 'idlink.sqlite');
  const first = await startServer(settingsFor(file), dir);
  // 12,000 nodes of 2 IDs: more than a batch (20,000 IDs on SQLite), which the import writes while it waits for the rest.
  const body = exportBody(12_000);
  const request = http.request(`${first.base}/v1/dst/_import`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/x-ndjson', 'Transfer-Encoding': 'chunked' },
  });
  request.on('error', () => undefined);
  request.write(body.text);
  const written = () => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare<[], number>("SELECT count(*) FROM nodes WHERE customer_id = 'dst'").pluck().get() ?? 0;
    } finally {
      db.close();
    }
  };
  await waitFor('a batch of the import to be written', () => written() > 0, { timeoutMs: 30_000 });
  expect((await send(first.base, 'GET', '/v1/dst/settings', ADMIN)).status).toBe(503);
  first.server.child.kill('SIGKILL');
  await first.server.exited;

  const second = await startServer(settingsFor(file), dir);
  await logged(second.server, 'undid imports a stopped process left unfinished');
  expect(written()).toBe(0);
  expect(kinds(await exportText(second.base, 'dst'))).toEqual(['export', 'settings', 'blocklist', 'delivery_ids', 'end']);
  const again = await fetch(`${second.base}/v1/dst/_import`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/x-ndjson' },
    body: body.whole,
  });
  expect(again.status).toBe(200);
  expect(await again.json()).toMatchObject({ nodes: 12_000, ids: 24_000 });
});
