// An export whose process is killed while it streams (the real server, SQLite on a file): the client's body ends
// without its `end` line, which is how it knows the export is cut; nothing was written, so after a restart the same
// customer exports the same lines as before.
import path from 'node:path';
import { importMadeUp } from '../helpers/export-body';
import { exportKilledMidStream } from '../helpers/killed-export';
import { freshDir, installCleanup, startServer } from '../helpers/server-process';

installCleanup();

const ADMIN = 'export-admin-token-0123456789abcdef';
const settingsFor = (file: string): Record<string, string> => ({ PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: file, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' });

/** The export's lines but its header, which names the feed's cursor. */
async function exportLines(base: string): Promise<string[]> {
  const res = await fetch(`${base}/v1/big/_export?history=true`, { headers: { Authorization: `Bearer ${ADMIN}` } });
  expect(res.status).toBe(200);
  return (await res.text()).trimEnd().split('\n').slice(1);
}

test('when the process is killed while an export streams, then the body the client got has no end line, and after a restart the export is whole and the same', async () => {
  const dir = freshDir('export-restart');
  const file = path.join(dir, 'idlink.sqlite');
  const first = await startServer(settingsFor(file), dir);
  // 12,000 nodes whose devices have 1,000-character ids: an export of about 13 MB, more than the sockets' buffers
  // hold, which the client below stops reading after its first chunk.
  await importMadeUp(first.base, 'big', 12_000, ADMIN, 1000);
  const before = await exportLines(first.base);
  expect(JSON.parse(before.at(-1) ?? '{}')).toMatchObject({ kind: 'end' });

  const cut = await exportKilledMidStream(`${first.base}/v1/big/_export?history=true`, ADMIN, first.server);
  expect(cut.length).toBeGreaterThan(0);
  expect(cut).not.toContain('"kind":"end"');

  const second = await startServer(settingsFor(file), dir);
  expect(await exportLines(second.base)).toEqual(before);
}, 120_000);
