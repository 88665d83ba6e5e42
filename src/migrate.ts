// `npm run migrate -- --from <store> --to <store>`, a store being `sqlite:<path>` or `neo4j` (the NEO4J_* settings):
// copies every customer of one store into the other, with the services stopped (docs/changes-and-export.md#moving-a-whole-service).
// Each customer goes as an export with its history would, imported as `_import` imports one (src/domain/import.ts), without the
// NDJSON between them; then the tokens as stored (hashes, ids, labels, kinds, revocations), so the same clients keep
// working. It refuses a target that holds anything but what an interrupted run of the same copy left, which it goes on
// from; it prints its progress, and ends by exporting each customer from both stores and comparing the lines, saying
// which differ (exit 1 then).
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ConfigError, loadConfig } from './config';
import { isDomainError } from './domain/errors';
import { exportRecords, type ImportLine, ImportService } from './domain/import';
import type { KeptToken } from './domain/ports/inventory';
import type { SnapshotPart } from './domain/ports/snapshots';
import type { StorePorts } from './domain/ports/store-ports';
import { linesOf } from './http/routes/export';
import { Neo4jStore } from './store/neo4j/neo4j-store';
import { SqliteStore } from './store/sqlite/sqlite-store';

/** A reason not to start, said in one line; the process exits 2 and writes nothing. */
class Refusal extends Error {}

const USAGE = 'npm run migrate -- --from <sqlite:<path>|neo4j> --to <sqlite:<path>|neo4j>';
const PROGRESS_EVERY_MS = 5000;

type Store = StorePorts & { close(): Promise<void> };

/** Whether two paths name one file: the same path, or one file by two names (a link, a case-folding file system). */
function sameFile(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    const [x, y] = [fs.statSync(a), fs.statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

function parseArgs(args: readonly string[]): { from: string; to: string } {
  const named = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i];
    const value = args[i + 1];
    if ((name !== '--from' && name !== '--to') || value === undefined || named.has(name)) throw new Refusal(`usage: ${USAGE}`);
    named.set(name, value);
  }
  const from = named.get('--from');
  const to = named.get('--to');
  if (from === undefined || to === undefined) throw new Refusal(`usage: ${USAGE}`);
  if (from === to || (from.startsWith('sqlite:') && to.startsWith('sqlite:') && sameFile(from.slice(7), to.slice(7)))) {
    throw new Refusal('--from and --to name the same store');
  }
  return { from, to };
}

async function openStore(spec: string, role: 'from' | 'to'): Promise<Store> {
  if (spec.startsWith('sqlite:')) {
    const file = path.resolve(spec.slice('sqlite:'.length));
    if (role === 'from' && !fs.existsSync(file)) throw new Refusal(`--from names no file: ${file}`);
    if (role === 'to' && !fs.existsSync(path.dirname(file))) throw new Refusal(`the folder of --to does not exist: ${path.dirname(file)}`);
    return new SqliteStore({ path: file });
  }
  if (spec !== 'neo4j') throw new Refusal(`a store is sqlite:<path> or neo4j, not ${spec}`);
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) throw new Refusal(e.message);
    throw e;
  }
  const { uri, ...connection } = config.neo4j;
  if (uri === undefined) throw new Refusal('neo4j needs NEO4J_URI (and NEO4J_PASSWORD, NEO4J_DATABASE as the service has them)');
  let store;
  try {
    store = await Neo4jStore.connect({ ...connection, uri });
  } catch (e) {
    // Its message names the server and the database, never the password; nothing was copied yet.
    throw new Refusal(`--${role}: ${e instanceof Error ? e.message : String(e)}`);
  }
  // Its exports hold nobody back (the services are stopped) and may take as long as a customer needs.
  store.exportTimeoutMs = Number.POSITIVE_INFINITY;
  return store;
}

/** Each line of the customer's export, as text, but the header (which names the store's cursor). */
async function* exportedLines(store: Store, customerId: string): AsyncGenerator<string> {
  const snapshot = await store.openSnapshot(customerId, { history: true });
  try {
    for await (const part of snapshot.parts) for (const line of linesOf(part)) yield JSON.stringify(line);
  } finally {
    await snapshot.close();
  }
}

/** Whether the customer's exports from both stores hold the same lines, read side by side. */
async function sameExports(a: Store, b: Store, customerId: string): Promise<boolean> {
  const left = exportedLines(a, customerId);
  const right = exportedLines(b, customerId);
  try {
    for (;;) {
      const [x, y] = await Promise.all([left.next(), right.next()]);
      if (x.done || y.done) return x.done === true && y.done === true;
      if (x.value !== y.value) return false;
    }
  } finally {
    await Promise.all([left.return(undefined), right.return(undefined)]);
  }
}

/** How many records of what an import writes (not settings, blocklist or id counters) a snapshot part holds. */
function importedRecords(part: SnapshotPart): number {
  switch (part.kind) {
    case 'settings':
    case 'blocklist':
    case 'deliveryIds':
      return 0;
    case 'schemas':
      return part.schemas.length;
    case 'nodes':
      return part.nodes.length;
    case 'separations':
      return part.separations.length;
    case 'deliveries':
      return part.deliveries.length;
    case 'impressions':
      return part.tallies.length;
    case 'history':
      return part.keys.length;
  }
}

/**
 * Whether the customer holds nothing an import writes but its settings, blocklist and id counters, which an import
 * into it replaces or raises: what an earlier run's import that failed and was undone leaves (it keeps the counters,
 * so that no id is given twice).
 */
async function holdsNoImportedData(store: Store, customerId: string): Promise<boolean> {
  const snapshot = await store.openSnapshot(customerId, { history: true });
  try {
    for await (const part of snapshot.parts) if (importedRecords(part) > 0) return false;
    return true;
  } finally {
    await snapshot.close();
  }
}

const say = (line: string) => process.stdout.write(`migrate: ${line}\n`);
const rate = (ids: number, ms: number) => Math.round((ids * 1000) / Math.max(ms, 1)).toLocaleString('en');

/**
 * What an interrupted run of the same copy left in the target, checked before anything is written: every customer
 * the target holds must be the source's, exported the same from both (or the one that run was importing), and its
 * tokens none or the source's. Anything else is refused. Then the import that run was writing is undone (the
 * services are stopped: no mark in the target belongs to a running import). Answers the customers copied already,
 * and whether the tokens are.
 */
async function leftByEarlierRun(from: Store, to: Store, imports: ImportService, tokens: KeptToken[]): Promise<{ copied: Set<string>; tokensCopied: boolean }> {
  const there = await to.customerIds();
  const sources = new Set(await from.customerIds());
  const importing = new Set(await to.unfinishedImports(0));
  const copied = new Set<string>();
  for (const customerId of there) {
    if (sources.has(customerId)) {
      // The customer an interrupted run was importing: undone below, and imported again.
      if (importing.has(customerId)) continue;
      if (await sameExports(from, to, customerId)) {
        copied.add(customerId);
        continue;
      }
      // One whose import failed and was undone, which leaves its id counters: imported again.
      if (await holdsNoImportedData(to, customerId)) continue;
    }
    throw new Refusal(
      `--to holds data already, and customer ${customerId} there is not a copy of --from's: migrate into an empty store, or into what an interrupted run of the same copy left`,
    );
  }
  const kept = await to.keptTokens();
  if (kept.length > 0 && !isDeepStrictEqual(kept, tokens)) throw new Refusal("--to holds tokens already that are not --from's: migrate into an empty store");
  const undone = await imports.abandonUnfinished(0);
  if (undone.length > 0) say(`undid the unfinished import of ${undone.join(', ')}, which an interrupted run left`);
  if (copied.size > 0) say(`going on from an interrupted run: ${copied.size} customers were copied already, and their exports match`);
  return { copied, tokensCopied: kept.length > 0 };
}

async function migrate(from: Store, to: Store): Promise<boolean> {
  // What a service stopped mid-import left in the source is undone at its next start, not copied as if it were whole.
  const unfinished = await from.unfinishedImports(0);
  if (unfinished.length > 0) {
    throw new Refusal(
      `--from has an unfinished import of ${unfinished.join(', ')} (a service stopped while it ran): start a service on --from and let it undo that (it logs so), stop it, and migrate then`,
    );
  }
  const customers = await from.customerIds();
  const tokens = await from.keptTokens();
  // The source's data passed its own limits when it was written: the target takes it as it is.
  const imports = new ImportService(to, { nodeMaxIds: Number.MAX_SAFE_INTEGER });
  const earlier = await leftByEarlierRun(from, to, imports, tokens);
  const started = Date.now();
  let ids = 0;
  /**
   * The lines as they go, their nodes' IDs counted for the progress lines, each with the bytes of its export line,
   * which bound a batch (IMPORT_BATCH_BYTES) as they do for `_import`.
   */
  async function* counted(lines: AsyncIterable<ImportLine>): AsyncGenerator<ImportLine> {
    for await (const line of lines) {
      if (!('record' in line)) {
        yield line;
        continue;
      }
      if (line.record.kind === 'node') ids += line.record.node.ids.length + 1;
      yield { ...line, bytes: Buffer.byteLength(JSON.stringify(line.record)) };
    }
  }
  const ticker = setInterval(() => say(`${ids.toLocaleString('en')} IDs so far, ${rate(ids, Date.now() - started)} IDs/s`), PROGRESS_EVERY_MS);
  try {
    for (const [i, customerId] of customers.entries()) {
      if (earlier.copied.has(customerId)) continue;
      const began = Date.now();
      const snapshot = await from.openSnapshot(customerId, { history: true });
      let counts;
      try {
        counts = await imports.import({ kind: 'admin' }, customerId, counted(exportRecords(snapshot.parts)), new AbortController().signal);
      } finally {
        await snapshot.close();
      }
      say(
        `customer ${i + 1}/${customers.length} ${customerId}: ${counts.nodes} nodes, ${counts.ids} IDs, ${counts.historyEntries} history entries, ` +
          `${counts.deliveries} deliveries in ${Date.now() - began} ms (${rate(counts.ids, Date.now() - began)} IDs/s)`,
      );
    }
  } finally {
    clearInterval(ticker);
  }
  if (!earlier.tokensCopied) await to.putKeptTokens(tokens);
  const tookMs = Date.now() - started;
  say(
    `copied ${customers.length - earlier.copied.size} customers, ${ids.toLocaleString('en')} IDs and ${earlier.tokensCopied ? 0 : tokens.length} tokens in ${(tookMs / 1000).toFixed(1)} s (${rate(ids, tookMs)} IDs/s)`,
  );
  const differing: string[] = [];
  for (const customerId of customers) if (!(await sameExports(from, to, customerId))) differing.push(customerId);
  // Read again on both sides: a token issued or revoked in the source since the copy began (a service left running)
  // shows here.
  const sameTokens = isDeepStrictEqual(await from.keptTokens(), await to.keptTokens());
  if (differing.length > 0) say(`the exports of ${differing.length} customers differ between the stores: ${differing.join(', ')}`);
  if (!sameTokens) say('the tokens differ between the stores (was a service running on --from?)');
  if (differing.length > 0 || !sameTokens) return false;
  say(`the exports of all ${customers.length} customers and the tokens are the same on both stores`);
  return true;
}

async function main(): Promise<number> {
  const { from, to } = parseArgs(process.argv.slice(2));
  const source = await openStore(from, 'from');
  try {
    const target = await openStore(to, 'to');
    try {
      return (await migrate(source, target)) ? 0 : 1;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof Refusal) {
      process.stderr.write(`migrate: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    // A store's own message may quote the values of what it refused (a secure ID): only ours, and the kind of the others.
    const why = isDomainError(e) ? `${e.code}: ${e.message}` : e instanceof Error ? `${e.name}${'code' in e ? ` ${String(e.code)}` : ''}` : typeof e;
    process.stderr.write(
      `migrate: failed (${why}); the customers copied before it are in the target, and the one it was importing holds nothing of it: run it again to go on\n`,
    );
    process.exitCode = 1;
  },
);
