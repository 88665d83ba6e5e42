// The store's read-write connection to its file, with the settings every such connection has: the store's own
// (src/store/sqlite/sqlite-store.ts) and the import writer's (src/store/sqlite/import-writer.ts).
import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import Database from './driver';

export interface ConnectionOptions {
  /** A file, or `:memory:`. */
  path: string;
  synchronous?: 'NORMAL' | 'FULL';
  /** The connection's page cache, in MB; 64 by default. */
  cacheMb?: number;
}

export function openDatabase(options: ConnectionOptions): BetterSqlite3.Database {
  const inMemory = options.path === ':memory:';
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(options.path)), { recursive: true });
  const db = new Database(options.path);
  if (!inMemory) db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // 64 MB of page cache unless told otherwise (SQLite's default is 2 MB): the ID indexes of a million-ID graph stay in
  // memory.
  db.pragma(`cache_size = -${Math.round((options.cacheMb ?? 64) * 1024)}`);
  // Deleted content is overwritten with zeros, so an erased value leaves no bytes in free pages (docs/history-and-erasure.md).
  db.pragma('secure_delete = ON');
  return db;
}
