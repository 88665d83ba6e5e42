// In CI the Neo4j suites start while Node 20's SQLite driver still compiles (.ci/run, docs/contributing.md): a file
// of them that opens SQLite first waits for the file CI creates once the driver is built (SQLITE_DRIVER_BUILT_FILE).
// Elsewhere the driver is built before any suite runs, and this returns at once. better-sqlite3 loads its compiled
// part at the first database it opens, not when it is imported.
import fs from 'node:fs';
import { waitFor } from './settling';

/** How long a file waits for the driver: the compile takes one to two minutes on a busy two-core machine. */
export const SQLITE_DRIVER_WAIT_MS = 600_000;

export async function sqliteDriverBuilt(): Promise<void> {
  const file = process.env.SQLITE_DRIVER_BUILT_FILE;
  if (!file) return;
  await waitFor('the SQLite driver to be built (SQLITE_DRIVER_BUILT_FILE)', () => fs.existsSync(file), { timeoutMs: SQLITE_DRIVER_WAIT_MS, everyMs: 500 });
}
