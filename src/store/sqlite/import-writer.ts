// A worker thread of the SQLite store (src/store/sqlite/sqlite-store.ts): writes the batches of an import into the
// store's file on a connection of its own, one IMMEDIATE transaction each, while the event loop reads and checks the
// lines of the next batch. SQLite takes one writer at a time: the store sends a batch only between its own write
// transactions, and holds its writes back until the batch has committed or rolled back.
import { type ErrorCode, isDomainError } from '../../domain/errors';
import type { ImportBatch, ImportRefusal } from '../../domain/ports/imports';
import { type ConnectionOptions, openDatabase } from './connection';
import { SqliteDeliveries } from './sqlite-deliveries';
import { storeError } from './sqlite-errors';
import { SqliteHistory } from './sqlite-history';
import { RefusedBatch, SqliteImport } from './sqlite-import';
import { SqliteSchemas } from './sqlite-schemas';

/**
 * A batch as it crosses to the thread: its nodes and history, nearly all of it, as JSON text. Profiled on a
 * million-ID import, the thread spent 1.0 s parsing them and 0.5 s collecting garbage, where their structured clone
 * cost it 1.65 s and 1.3 s, and the thread's work is what sets the import's pace.
 */
export interface ImportTask {
  connection: ConnectionOptions;
  customerId: string;
  batch: Omit<ImportBatch, 'nodes' | 'history'>;
  nodesAndHistory: string;
}

/** `batch` as an ImportTask carries it. */
export function importTask(connection: ConnectionOptions, customerId: string, { nodes, history, ...rest }: ImportBatch): ImportTask {
  return { connection, customerId, batch: rest, nodesAndHistory: JSON.stringify({ nodes, history }) };
}

/**
 * What a batch came to: written, refused for a line (what RefusedBatch carries), or refused as the store refuses a
 * write (a DomainError does not cross threads as itself: its code and message do). Anything else is thrown.
 */
export type ImportAnswer = { written: true } | { refusal: ImportRefusal } | { refused: { code: ErrorCode; message: string } };

interface Writer {
  file: string;
  db: ReturnType<typeof openDatabase>;
  schemas: SqliteSchemas;
  history: SqliteHistory;
  deliveries: SqliteDeliveries;
  imports: SqliteImport;
}

/** The connection of this thread: one store, one file. */
let writer: Writer | undefined;

function writerOf(connection: ConnectionOptions): Writer {
  if (writer?.file === connection.path) return writer;
  writer?.db.close();
  // 16 MB of page cache, not the store's 64: the import took as long, and the service's peak RSS was 60–90 MB lower.
  const db = openDatabase({ ...connection, cacheMb: 16 });
  const schemas = new SqliteSchemas(db);
  const history = new SqliteHistory(db);
  const deliveries = new SqliteDeliveries(db);
  writer = { file: connection.path, db, schemas, history, deliveries, imports: new SqliteImport(db, schemas, history, deliveries) };
  return writer;
}

export default function write(task: ImportTask): ImportAnswer {
  const w = writerOf(task.connection);
  // The store's own connection wrote the customer since the last batch here (an import begun again after one was
  // undone, say): nothing this thread read of it before is kept.
  w.schemas.forget(task.customerId);
  w.deliveries.forget(task.customerId);
  try {
    const { nodes, history } = JSON.parse(task.nodesAndHistory) as Pick<ImportBatch, 'nodes' | 'history'>;
    w.db.transaction(() => w.imports.batch(task.customerId, { ...task.batch, nodes, history })).immediate();
    return { written: true };
  } catch (e) {
    if (e instanceof RefusedBatch) return { refusal: e.refusal };
    const refused = storeError(e);
    if (isDomainError(refused)) return { refused: { code: refused.code, message: refused.message } };
    throw e;
  } finally {
    // The store tells the feed's waiting calls itself (history entries were appended, or none: it asks no one).
    w.history.takeAppended();
  }
}
