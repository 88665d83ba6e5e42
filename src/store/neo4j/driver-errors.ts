// Turns what the Neo4j driver throws into domain errors: the store cannot be reached → store_unavailable; Neo4j
// refused the memory a statement needed → server_busy; a uniqueness constraint refused a write → the caller's
// conflict (node_exists); everything else stays as it is (a 500 whose details go to the log, never to the client).
import { DomainError, isDomainError } from '../../domain/errors';

const CONSTRAINT_VIOLATION = 'Neo.ClientError.Schema.ConstraintValidationFailed';
const ENTITY_NOT_FOUND = 'Neo.ClientError.Statement.EntityNotFound';

/** The driver's error code (`Neo.ClientError...`, `ServiceUnavailable`, `SessionExpired`), or undefined for other errors. */
export function neo4jCode(e: unknown): string | undefined {
  // By shape, not instanceof: jest gives each test file its own copy of the driver module.
  if (typeof e !== 'object' || e === null || isDomainError(e)) return undefined;
  return 'name' in e && e.name === 'Neo4jError' && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

export const isConstraintViolation = (e: unknown): boolean => neo4jCode(e) === CONSTRAINT_VIOLATION;

/**
 * A write touched a vertex another transaction deleted after this one had read it (an Id vertex deleted as an
 * orphan while being linked, a node deleted while being changed). Nothing was committed, and running the
 * transaction again sees the deletion.
 */
export const isEntityNotFound = (e: unknown): boolean => neo4jCode(e) === ENTITY_NOT_FOUND;

/**
 * The driver's own pool found no free connection within connectionAcquisitionTimeout (every connection busy).
 * The driver gives this error no code of its own (`N/A`, as for its other local errors), so it is told by its
 * message, which neo4j-driver-core's pool has written the same way since driver 4.
 */
const isAcquisitionTimeout = (e: unknown, code: string): boolean =>
  code === 'N/A' && e instanceof Error && e.message.startsWith('Connection acquisition timed out');

/**
 * The connection failed while the driver was logging in (a server stopping as the pool opens a connection: it
 * closes the socket, or a write to it fails with EPIPE). The channel reports ServiceUnavailable, but the driver's
 * login step passes on only its message, as a ProtocolError (neo4j-driver-bolt-connection, BoltProtocol._onLoginError),
 * so it is told by that message: one of the channel's two (node-channel.js, _handleConnectionTerminated and
 * _handleConnectionError), unchanged since driver 4. Each was seen once in a CI run of
 * test/neo4j/faults.neo4j.test.ts as a 500 (the second with "Caused by: write EPIPE").
 */
const isConnectionLostDuringLogin = (e: unknown, code: string): boolean =>
  code === 'ProtocolError' && e instanceof Error && (e.message === 'Connection was closed by server' || e.message.startsWith('Failed to connect to server. '));

/**
 * Neo4j refused a statement memory: the pool all transactions share is full (dbms.memory.transaction.total.max,
 * 70% of the heap by default), this transaction passed its own limit (db.memory.transaction.max, or the off-heap
 * one), or the heap itself ran out. The driver retries all but the second as transient; the store never does
 * (Transactions.retrying): a statement that needs more than the pool fails the same way each time, within a
 * second, so its retries would only hold a connection for the retry time, taking the pool from every other
 * transaction at each attempt, and then fail all the same.
 */
const OUT_OF_MEMORY = new Set([
  'Neo.TransientError.General.MemoryPoolOutOfMemoryError',
  'Neo.ClientError.General.TransactionOutOfMemoryError',
  'Neo.TransientError.General.TransactionMemoryLimit',
  'Neo.TransientError.General.OutOfMemoryError',
]);

export const isOutOfMemory = (e: unknown): boolean => OUT_OF_MEMORY.has(neo4jCode(e) ?? '');

/**
 * A 503 the caller may try again later, as for any other refusal for load (server_busy): the statements are bounded
 * (TRAVERSAL_MAX_NODES, TRAVERSAL_MAX_IDS, NODE_MAX_IDS) to need a fraction of the pool, so a full pool means other
 * transactions hold the rest. Names neither Neo4j nor its settings: the client learns nothing of the store.
 */
export const outOfMemory = (): DomainError =>
  new DomainError('server_busy', 'The store has no memory left for this request right now; retry later, or ask for less.');

const SERVER_STOPPED_TRANSACTION = new Set([
  'Neo.ClientError.Transaction.LockClientStopped',
  'Neo.ClientError.Transaction.Terminated',
  'Neo.ClientError.Transaction.TransactionTimedOut',
  'Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration',
]);

/** Errors that mean the database cannot serve us right now, as opposed to a fault in a statement. */
export function isUnavailable(e: unknown): boolean {
  const code = neo4jCode(e);
  if (code === undefined) return false;
  return (
    isAcquisitionTimeout(e, code) ||
    isConnectionLostDuringLogin(e, code) ||
    code === 'ServiceUnavailable' ||
    code === 'SessionExpired' ||
    // Still transient after the driver's retries (deadlocks, leader switches, a database starting or stopping).
    code.startsWith('Neo.TransientError.') ||
    // A transaction the server stopped: over its time limit, or terminated (drivers report some of these as
    // client errors, though nothing in the request caused them).
    SERVER_STOPPED_TRANSACTION.has(code) ||
    // Wrong or expired credentials, or a database that does not exist: the configuration, not the request.
    code.startsWith('Neo.ClientError.Security.') ||
    code === 'Neo.ClientError.Database.DatabaseNotFound'
  );
}

export const storeUnavailable = (): DomainError => new DomainError('store_unavailable', 'The Neo4j store cannot be reached right now.');

/**
 * The error to throw for `e`: domain errors unchanged, a refusal of memory as server_busy, unavailability as
 * store_unavailable, the rest as they are.
 */
export function toStoreError(e: unknown, onConstraintViolation?: () => Error): unknown {
  if (isDomainError(e)) return e;
  if (onConstraintViolation && isConstraintViolation(e)) return onConstraintViolation();
  if (isOutOfMemory(e)) return outOfMemory();
  if (isUnavailable(e)) return storeUnavailable();
  return e;
}
