// `npm run backup -- <file>`: a consistent copy of the SQLite database SQLITE_PATH names, taken with SQLite's online
// backup API while the service serves and writes; `SQLITE_PATH=<file> npm start` serves it as it was, but for the
// change feed's cursors, which each service started on the copy gives with a key of its own
// (docs/operations.md#backing-up-and-restoring).
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from './config';
import Database from './store/sqlite/driver';

/** A reason not to copy at all, said in one line; the process exits 2 and leaves every file as it was. */
class Refusal extends Error {}

/**
 * Pages copied per step at first (1 MB of 4 KB pages). A write by the service between two steps makes SQLite start
 * the copy again from its first page, so a service that writes more often than a whole copy of small steps takes
 * would keep it from ever ending; each new start doubles the step, until one step copies the whole database in one
 * read transaction, which no write interrupts (WAL: the service's writes go on meanwhile).
 */
const FIRST_STEP_PAGES = 256;
const WHOLE_DATABASE = 0x7fffffff;
const PROGRESS_EVERY_MS = 1000;

/** The files SQLite keeps beside a database: a stale one beside the copy would be read as part of it. */
const companions = (file: string): string[] => [file, `${file}-journal`, `${file}-wal`, `${file}-shm`];

const exists = (file: string): boolean => fs.existsSync(file);

/** The one file argument, as an absolute path, once nothing stands where the copy would go. */
function checkedTarget(args: readonly string[]): string {
  if (args.length !== 1 || args[0] === '') throw new Refusal('name the one file to write: npm run backup -- <file>');
  const target = path.resolve(args[0] ?? '');
  const taken = companions(target).find(exists);
  if (taken === target) throw new Refusal(`${target} exists already: a backup never overwrites a file; name a new one`);
  if (taken) throw new Refusal(`${taken} exists: SQLite would read it as part of the copy; remove it, or name another file`);
  if (!exists(path.dirname(target))) throw new Refusal(`the folder ${path.dirname(target)} does not exist`);
  return target;
}

/** The database file the service uses, as an absolute path: the settings of the service, read the same way. */
function checkedSource(): string {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) throw new Refusal(e.message);
    throw e;
  }
  if (config.store !== 'sqlite') {
    throw new Refusal(`STORE is ${config.store}: this copies the SQLite store only; docs/operations.md says how to back up Neo4j`);
  }
  if (config.sqlitePath === ':memory:') throw new Refusal('SQLITE_PATH is :memory:, a store held inside the service process: there is no file to copy');
  const source = path.resolve(config.sqlitePath);
  if (!exists(source)) throw new Refusal(`SQLITE_PATH names no file: ${source}`);
  if (!fs.statSync(source).isFile()) throw new Refusal(`SQLITE_PATH is not a file: ${source}`);
  return source;
}

/**
 * Gives the finished copy its name. A hard link fails when the name is taken, where a rename would replace what
 * took it since the check; a file system without hard links gets the rename after one more check.
 */
function publish(partial: string, target: string): void {
  const appeared = new Refusal(`${target} appeared during the copy: a backup never overwrites a file; name a new one`);
  try {
    fs.linkSync(partial, target);
  } catch (e) {
    const code = e instanceof Error && 'code' in e ? e.code : undefined;
    if (code === 'EEXIST') throw appeared;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw e;
    if (exists(target)) throw appeared;
    fs.renameSync(partial, target);
    return;
  }
  fs.unlinkSync(partial);
}

/**
 * Takes the feed key out of the copy (the store's migration 12 made its table), so that each service started on a
 * copy of it makes a key of its own at its first start: a restored service numbers its change feed on from where the
 * copy was taken, so a cursor given after that (by the source, or by an earlier restore of the same backup) would
 * name other changes there, and must be refused, not read from elsewhere.
 */
function dropFeedKey(file: string): void {
  const copy = new Database(file, { fileMustExist: true });
  try {
    const made = copy.prepare<[], number>("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'feed_key'").pluck().get();
    // Overwritten where it lay, as the store's own connections delete (secure_delete): no copy of the key is left.
    copy.pragma('secure_delete = ON');
    if (made !== undefined) copy.prepare('DELETE FROM feed_key').run();
  } finally {
    copy.close();
  }
}

/** Waits until what `file` (a file, or a folder's names) holds is on disk, so that it survives a power cut. */
function syncToDisk(file: string): void {
  const handle = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
}

async function backup(args: readonly string[], say: (line: string) => void): Promise<void> {
  const target = checkedTarget(args);
  const source = checkedSource();
  const partial = `${target}.partial`;
  const leftOver = companions(partial).find(exists);
  if (leftOver) throw new Refusal(`${leftOver} exists: another backup to ${target} is running, or one was cut off; remove it when none runs`);
  // Created here, owner-only, so that the copy of every secure ID never exists readable by others; SQLite copies
  // into the empty file (and gives its journal the same mode). 'wx': a second backup to the same file stops here.
  fs.closeSync(fs.openSync(partial, 'wx', 0o600));
  let published = false;
  try {
    // Read-only: the copy never changes the source (no migration, no pragma that writes), whatever version made it.
    const db = new Database(source, { readonly: true, fileMustExist: true });
    try {
      const pageSize = Number(db.pragma('page_size', { simple: true }));
      say(`copying ${source} to ${target} (pages of ${pageSize} bytes)`);
      let step = FIRST_STEP_PAGES;
      let copiedBefore = 0;
      let saidAt = 0;
      const { totalPages } = await db.backup(partial, {
        progress: ({ totalPages: total, remainingPages }) => {
          const copied = total - remainingPages;
          if (copiedBefore > 0 && copied <= copiedBefore) {
            step = step * 2 >= total ? WHOLE_DATABASE : step * 2;
            say(
              `the database changed during the copy; starting again with ${step === WHOLE_DATABASE ? 'the whole database in one step' : `steps of ${step} pages`}`,
            );
          }
          copiedBefore = copied;
          if (Date.now() - saidAt >= PROGRESS_EVERY_MS) {
            say(`copied ${copied} / ${total} pages`);
            saidAt = Date.now();
          }
          return step;
        },
      });
      say(`copied ${totalPages} / ${totalPages} pages`);
    } finally {
      db.close();
    }
    dropFeedKey(partial);
    syncToDisk(partial);
    publish(partial, target);
    published = true;
    syncToDisk(path.dirname(target));
  } finally {
    if (!published) for (const file of companions(partial)) fs.rmSync(file, { force: true });
  }
  const bytes = fs.statSync(target).size;
  say(`wrote ${target}: ${bytes} bytes (${(bytes / 1048576).toFixed(1)} MiB)`);
}

backup(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).catch((e: unknown) => {
  if (e instanceof Refusal) {
    process.stderr.write(`backup refused: ${e.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`backup failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
