// A worker thread of the SQLite store's read pool (src/store/sqlite/read-pool.ts): the searches and graphs too big
// for the event loop run here, each on this thread's own read-only connection to the store's file. In WAL mode a
// reader sees the last commit when its read begins, and the store answers a write only after its commit, so a
// search here sees every write already answered, and nothing uncommitted.
import Database from './driver';
import { isDomainError } from '../../domain/errors';
import type { GraphComponent, GraphQuery } from '../../domain/graph';
import type { SearchQuery, SearchResult } from '../../domain/model';
import { SqliteSearch } from './sqlite-search';

/** A read, without its answer room (a function: it stays on the event loop) but for the answer size it may build freely. */
export type ReadTask = { path: string; freeBytes: number } & ({ kind: 'search'; query: SearchQuery } | { kind: 'graph'; query: GraphQuery });

/**
 * A DomainError does not cross threads as itself: its code and message do. needsRoom: the answer's size, when it
 * is larger than the task's freeBytes (src/store/sqlite/read-pool.ts takes the room, or refuses).
 */
export type ReadAnswer = { ok: SearchResult | GraphComponent } | { refused: { code: string; message: string } } | { needsRoom: number };

/** What the room of a task throws when the answer needs more than it may build freely. */
class NeedsRoom {
  constructor(readonly bytes: number) {}
}

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
  const answerRoom = {
    freeBytes: task.freeBytes,
    take: (bytes: number) => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a sentinel, caught in read(): no stack to build
      throw new NeedsRoom(bytes);
    },
  };
  try {
    return { ok: task.kind === 'search' ? reader.search({ ...task.query, answerRoom }) : reader.graph({ ...task.query, answerRoom }) };
  } catch (e) {
    if (e instanceof NeedsRoom) return { needsRoom: e.bytes };
    if (isDomainError(e)) return { refused: { code: e.code, message: e.message } };
    throw e;
  }
}
