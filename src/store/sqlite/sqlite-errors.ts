// What SQLite's errors mean to the store: a constraint it checks, or a database that cannot be used right now.
import { DomainError } from '../../domain/errors';

// By name, not instanceof: the native addon keeps the SqliteError class of the first copy of better-sqlite3 loaded
// in the process, so a second copy (jest's per-file module registry) would otherwise miss every constraint error.
export const sqliteCode = (e: unknown): string | undefined =>
  // Not `instanceof Error` either: that class comes from the first copy's realm (jest gives each test file its own).
  typeof e === 'object' && e !== null && 'name' in e && e.name === 'SqliteError' && 'code' in e && typeof e.code === 'string' ? e.code : undefined;

export const isUniqueViolation = (e: unknown): boolean => sqliteCode(e) === 'SQLITE_CONSTRAINT_UNIQUE' || sqliteCode(e) === 'SQLITE_CONSTRAINT_PRIMARYKEY';

const isUnavailable = (e: unknown): boolean => /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|CORRUPT|NOTADB)/.test(sqliteCode(e) ?? '');

/** store_unavailable for a database that cannot be used right now (busy, locked, full, gone); any other error as it is. */
export const storeError = (e: unknown): unknown =>
  isUnavailable(e) ? new DomainError('store_unavailable', 'The embedded store cannot be used right now.') : e;
