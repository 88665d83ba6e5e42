// A worker thread of the SQLite store's read pool (src/store/sqlite/read-pool.ts): the searches, graphs and `_why`
// searches too big for the event loop run here, each on this thread's own read-only connection to the store's file.
// In WAL mode a reader sees the last commit when its read begins, and the store answers a write only after its
// commit, so a search here sees every write already answered, and nothing uncommitted.
import Database from './driver';
import { type ErrorCode, isDomainError } from '../../domain/errors';
import type { GraphComponent, GraphQuery } from '../../domain/graph';
import type { AnswerRoom, SearchQuery, SearchResult } from '../../domain/model';
import type { WhyFound, WhyQuery } from '../../domain/why';
import { SqliteSearch } from './sqlite-search';
import { SqliteWhy } from './sqlite-why';

/**
 * A read, without its answer room (a function: it stays on the event loop) but for the answer size it may build
 * freely. A `_why` answers one chain, which takes no room.
 */
export type ReadTask = { path: string; freeBytes: number } & (
  { kind: 'search'; query: SearchQuery } | { kind: 'graph'; query: GraphQuery } | { kind: 'why'; query: WhyQuery }
);

/**
 * A DomainError does not cross threads as itself: its code and message do. needsRoom: the answer's size, when it
 * is larger than the task's freeBytes (src/store/sqlite/read-pool.ts takes the room, or refuses).
 */
export type ReadAnswer = { ok: ReadFound } | { refused: { code: ErrorCode; message: string } } | { needsRoom: number };

/** What a read found, by the kind of its task. */
export type ReadFound = { kind: 'search'; found: SearchResult } | { kind: 'graph'; found: GraphComponent } | { kind: 'why'; found: WhyFound };

/** What the room of a task throws when the answer needs more than it may build freely. */
class NeedsRoom {
  constructor(readonly bytes: number) {}
}

interface Reader {
  search: SqliteSearch;
  why: SqliteWhy;
}

/** One connection per file this thread has read (one: a pool belongs to one store). */
const readers = new Map<string, Reader>();

function readerOf(file: string): Reader {
  let reader = readers.get(file);
  if (reader === undefined) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    // As the store's own connection (src/store/sqlite/sqlite-store.ts): wait out a checkpoint rather than fail.
    db.pragma('busy_timeout = 5000');
    reader = { search: new SqliteSearch(db), why: new SqliteWhy(db) };
    readers.set(file, reader);
  }
  return reader;
}

function answer(reader: Reader, task: ReadTask, answerRoom: AnswerRoom): ReadFound {
  switch (task.kind) {
    case 'search':
      return { kind: 'search', found: reader.search.search({ ...task.query, answerRoom }) };
    case 'graph':
      return { kind: 'graph', found: reader.search.graph({ ...task.query, answerRoom }) };
    case 'why': {
      const query = task.query;
      return { kind: 'why', found: reader.search.startsThen(query.customerId, (startNodes) => reader.why.why(query, startNodes)) };
    }
  }
}

export default function read(task: ReadTask): ReadAnswer {
  const reader = readerOf(task.path);
  const answerRoom: AnswerRoom = {
    freeBytes: task.freeBytes,
    take: (bytes: number) => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a sentinel, caught in read(): no stack to build
      throw new NeedsRoom(bytes);
    },
  };
  try {
    return { ok: answer(reader, task, answerRoom) };
  } catch (e) {
    if (e instanceof NeedsRoom) return { needsRoom: e.bytes };
    if (isDomainError(e)) return { refused: { code: e.code, message: e.message } };
    throw e;
  }
}
