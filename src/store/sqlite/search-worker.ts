// A worker thread of the SQLite store's read pool (src/store/sqlite/read-pool.ts): the searches and graphs too big
// for the event loop run here, each on this thread's own read-only connection to the store's file. In WAL mode a
// reader sees the last commit when its read begins, and the store answers a write only after its commit, so a
// search here sees every write already answered, and nothing uncommitted.
import Database from 'better-sqlite3';
import { isDomainError } from '../../domain/errors';
import type { GraphComponent, GraphQuery } from '../../domain/graph';
import type { SearchQuery, SearchResult } from '../../domain/model';
import { SqliteSearch } from './sqlite-search';

export type ReadTask = { path: string; kind: 'search'; query: SearchQuery } | { path: string; kind: 'graph'; query: GraphQuery };

/** A DomainError does not cross threads as itself: its code and message do. */
export type ReadAnswer = { ok: SearchResult | GraphComponent } | { refused: { code: string; message: string } };

/** One connection per file this thread has read (one: a pool belongs to one store). */
const readers = new Map<string, SqliteSearch>();

function readerOf(file: string): SqliteSearch {
  let reader = readers.get(file);
  if (reader === undefined) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    // As the store's own connection (src/store/sqlite/sqlite-store.ts): wait out a checkpoint rather than fail.
    db.pragma('busy_timeout = 5000');
    reader = new SqliteSearch(db);
    readers.set(file, reader);
  }
  return reader;
}

export default function read(task: ReadTask): ReadAnswer {
  const reader = readerOf(task.path);
  try {
    return { ok: task.kind === 'search' ? reader.search(task.query) : reader.graph(task.query) };
  } catch (e) {
    if (isDomainError(e)) return { refused: { code: e.code, message: e.message } };
    throw e;
  }
}
