// The Neo4j store. One driver per store (one store per process), checked with verifyConnectivity and closed by
// close(); every statement is a file under cypher/ (./statements.ts); reads run in session.executeRead, each write
// in one session.executeWrite transaction whose function has no effect outside the transaction, so the driver
// may retry it (and a retry after a lost commit reply answers what the committed attempt did: see write());
// sessions are closed in `finally`; every session names the database. Neo4j integers come back as
// JS numbers (disableLosslessIntegers) and integer parameters go out as Neo4j integers (int()). This file holds the
// driver, its sessions and transactions; what each call does inside its transaction is in a file of its own beside
// it (neo4j-nodes, -schemas, -tokens, -deliveries, -impressions, -history, -search, -graph, -bulk).
//
// The graph (drawn in the README, section Neo4j): (:IdNode)-[:LINKED]->(:Id) for nodes and the IDs they hold,
// (:IdNode)-[:IN_SCHEMA]->(:Schema) (the schema cannot be deleted under a node, as a foreign key would ensure),
// (:Schema)-[:DECLARES {position}]->(:IdType) for schemas, :SchemaGuard vertices (./schema-guards.ts), and
// :Token, :Delivery, :Sequence vertices. Every vertex carries its customer, and LINKED never joins two customers,
// so a traversal stays in one customer.
import { randomUUID } from 'node:crypto';
import neo4j, { type Driver, type ManagedTransaction, type Session } from 'neo4j-driver';
import {
  type Delivery,
  type DeliveryDraft,
  type DeliveryPage,
  type EligibilityState,
  EVERY_DELIVERY,
  type ImpressionOutcome,
  type ImpressionRequest,
  type ImpressionState,
  type PersonRequest,
} from '../../domain/deliveries';
import type { GraphComponent, GraphQuery } from '../../domain/graph';
import { DomainError, isDomainError } from '../../domain/errors';
import type { BlockRule } from '../../domain/blocklist';
import {
  type CustomerPolicy,
  type CustomerSettings,
  type EraseOutcome,
  type EraseRequest,
  type HistoryEntry,
  type HistoryPage,
  type IdPair,
  type NodeAddress,
  type SchemaRecord,
  type SearchQuery,
  type SearchResult,
  type TokenRecord,
} from '../../domain/model';
import { type NodeWrite, type PutSchemaOutcome, type Store, type StoredToken } from '../../domain/store';
import { isConstraintViolation, isEntityNotFound, isUnavailable, neo4jCode, storeUnavailable, toStoreError } from './driver-errors';
import { applyInBatches, type Refusal } from './neo4j-bulk';
import { appendHistory, eraseInGraph, historyPage, pruneHistory } from './neo4j-history';
import { Neo4jDeliveries } from './neo4j-deliveries';
import { Neo4jSchemas, schemaInUse } from './neo4j-schemas';
import { createToken, findActiveToken, listTokens, revokeToken, tokenWrittenBy } from './neo4j-tokens';
import { countedBy, personCounts, pruneKeys, recordInGraph } from './neo4j-impressions';
import { searchGraph } from './neo4j-search';
import { graphOf } from './neo4j-graph';
import { SchemaGuards } from './schema-guards';
import { keyParams, nodeExists, nodeIds, nodeWork, rekeyInGraph } from './neo4j-nodes';
import { int, type Query, type Row } from './query';
import { checkParams, loadStatements, type SchemaObject, schemaObjects, type Statement, type StatementName, type Statements } from './statements';

export interface Neo4jConnection {
  uri: string;
  username: string;
  /** Undefined: connect without authentication (a server with NEO4J_AUTH=none). */
  password: string | undefined;
  database: string;
  /** Most pooled connections (NEO4J_MAX_CONNECTION_POOL_SIZE); undefined: DRIVER_CONFIG's. */
  maxConnectionPoolSize?: number;
  /** How long a call waits for a free pooled connection (NEO4J_CONNECTION_ACQUISITION_TIMEOUT_MS); undefined: DRIVER_CONFIG's. */
  connectionAcquisitionTimeoutMs?: number;
  /** How long one store call may take, retries included (NEO4J_CALL_TIMEOUT_MS); undefined: DEFAULT_CALL_TIMEOUT_MS. */
  callTimeoutMs?: number;
  /** How often the connected service checks that cypher/schema/ is in place (NEO4J_SCHEMA_CHECK_MS); undefined: DEFAULT_SCHEMA_CHECK_MS. */
  schemaCheckMs?: number;
}

/** What a schema statement fails with when another service created the same constraint or index just before it. */
const MADE_AT_THE_SAME_MOMENT = new Set([
  'Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists',
  'Neo.ClientError.Schema.IndexWithNameAlreadyExists',
  'Neo.ClientError.Schema.ConstraintWithNameAlreadyExists',
]);

/** NEO4J_SCHEMA_CHECK_MS by default. */
export const DEFAULT_SCHEMA_CHECK_MS = 10_000;

/**
 * NEO4J_CALL_TIMEOUT_MS by default: above what a call can take on a live server (the driver's retries of 10 s, a
 * connection's wait of 10 s), below the 60 s after which IDLE_TIMEOUT_MS would cut the client off with no answer.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

const DRIVER_CONFIG = {
  disableLosslessIntegers: true,
  userAgent: 'idlink-service',
  // A call that waits on Neo4j (a lock, a slow query) holds its connection; when all are busy, the next call waits
  // connectionAcquisitionTimeout for one and then fails (store_unavailable, a 503) rather than queueing without end.
  maxConnectionPoolSize: 100,
  // Fail a request within seconds when Neo4j is unreachable, instead of the driver's defaults (30 s, 60 s, 30 s).
  connectionTimeout: 5_000,
  connectionAcquisitionTimeout: 10_000,
  // How long executeRead/executeWrite keep retrying transient failures (deadlocks, a leader switch).
  maxTransactionRetryTime: 10_000,
};

/** DRIVER_CONFIG with the pool settings the connection gives. */
const driverConfig = (connection: Neo4jConnection) => ({
  ...DRIVER_CONFIG,
  maxConnectionPoolSize: connection.maxConnectionPoolSize ?? DRIVER_CONFIG.maxConnectionPoolSize,
  connectionAcquisitionTimeout: connection.connectionAcquisitionTimeoutMs ?? DRIVER_CONFIG.connectionAcquisitionTimeout,
});

export interface ConnectOptions {
  /** The statements of cypher/ (loadStatements()); read from there when not given. */
  statements?: Statements;
  /** Aborting it gives up the attempt: the driver is closed and connect rejects. */
  signal?: AbortSignal;
}

/** Where the store connects, for messages: the URI without any user or password written into it, and the database. */
export const describeConnection = (connection: Pick<Neo4jConnection, 'uri' | 'database'>): string =>
  `Neo4j at ${connection.uri.replace(/\/\/[^/@]*@/, '//')} (database '${connection.database}')`;

/** What a call's timer answers when it beats the call (see Neo4jStore.bounded). */
const LATE: unique symbol = Symbol('late');

/** How long /readyz waits for Neo4j to answer its ping before it says 503. */
const PING_TIMEOUT_MS = 3_000;

/** How long start-up waits for the constraints and indexes to come online. */
const AWAIT_INDEXES_SECONDS = 300;

/** Attempts of a write that touched a vertex a concurrent transaction deleted (see isEntityNotFound). */
const WRITE_ATTEMPTS = 3;

/**
 * Asked by a write whose earlier attempt got as far as its commit: `{ result }`, what that attempt answered, when
 * its commit went through; undefined when it did not (the write then runs again as usual). See Neo4jStore.write.
 */
type IfCommitted<T> = (q: Query, writeId: string) => Promise<{ result: T } | undefined>;

/** What ifCommitted answers for a write that committed and returns nothing. */
const COMMITTED = { result: undefined };

interface WriteOptions<T> {
  /** The conflict a uniqueness violation means for this write (node_exists, schema_in_use), or a bulk line's LineRefused. */
  onConstraintViolation?: () => Error;
  ifCommitted?: IfCommitted<T>;
  /** Its time limit (see bounded); the store's NEO4J_CALL_TIMEOUT_MS unless given. */
  limitMs?: number;
}

/**
 * Lines of a bulk request per transaction. A batch holds the locks of all its nodes until it commits, so single
 * writes to those nodes wait that long. Loading the quick bench graph (100,020 IDs, 20,004 create lines) into a
 * local Neo4j 5.26: 1 line a transaction 1,271 IDs/s, 20 lines 2,068, 100 lines 2,928, 500 lines 3,044.
 */
const BULK_BATCH_LINES = 100;

/** Thrown inside a bulk batch's transaction to roll it back, carrying what refused it (see writeNodeBatch). */
class LineRefused extends Error {
  constructor(readonly refusal: Refusal | 'unattributed') {
    super('A bulk line was refused.');
  }
}

export class Neo4jStore implements Store {
  private closed = false;
  private readonly deliveries = new Neo4jDeliveries();
  private readonly schemas = new Neo4jSchemas();

  /**
   * Connects, checks that the database answers, applies cypher/schema/ (constraints and indexes) and moves a database
   * of an earlier version to per-customer id counters (sequence.adopt-shared.cypher): one attempt,
   * which rejects with a message naming what failed and the driver's error as its `cause`. The statement files are
   * read first, so a missing one stops start-up before any connection is made. A service keeps trying through
   * ConnectingStore (./neo4j-startup.ts).
   */
  static async connect(connection: Neo4jConnection, options: ConnectOptions = {}): Promise<Neo4jStore> {
    const statements = options.statements ?? loadStatements();
    // No password: no auth token, which the driver sends as scheme 'none'.
    const auth = connection.password === undefined ? undefined : neo4j.auth.basic(connection.username, connection.password);
    const driver = neo4j.driver(connection.uri, auth, driverConfig(connection));
    const where = describeConnection(connection);
    // Closing the driver ends a connection attempt under way, so a service stopping while it connects stops at once.
    const abandon = () => void driver.close();
    options.signal?.addEventListener('abort', abandon, { once: true });
    try {
      try {
        await driver.verifyConnectivity({ database: connection.database });
      } catch (e) {
        await driver.close();
        throw new Error(`${where} cannot be reached: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      const store = new Neo4jStore(driver, connection.database, statements, connection.callTimeoutMs);
      try {
        await store.applySchema();
      } catch (e) {
        await store.close();
        throw new Error(`${where}: applying the constraints and indexes of cypher/schema/ failed: ${e instanceof Error ? e.message : String(e)}`, {
          cause: e,
        });
      }
      try {
        // Start-up, not a request: a first run on a large database reads every delivery and token, however long.
        await store.write((q) => q('sequence.adopt-shared'), { limitMs: Infinity });
      } catch (e) {
        await store.close();
        throw new Error(`${where}: giving each customer its own delivery id counters failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      return store;
    } finally {
      options.signal?.removeEventListener('abort', abandon);
    }
  }

  /** Use connect(); this constructor takes a driver that is already checked (tests pass their own). */
  constructor(
    private readonly driver: Driver,
    private readonly database: string,
    private readonly statements: Statements,
    private readonly callTimeoutMs = DEFAULT_CALL_TIMEOUT_MS,
  ) {}

  // ---- sessions and transactions

  private session(accessMode: 'READ' | 'WRITE'): Session {
    if (this.closed) throw new DomainError('store_unavailable', 'The Neo4j store is closed.');
    return this.driver.session({
      database: this.database,
      defaultAccessMode: accessMode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE,
      // One bookmark manager for all sessions: a read sees every write this process committed before, also when
      // a cluster routes it to another member.
      bookmarkManager: this.driver.executeQueryBookmarkManager,
    });
  }

  private async runStatement<T>(tx: ManagedTransaction, statement: Statement, params: Record<string, unknown>): Promise<T[]> {
    checkParams(statement, params);
    const result = await tx.run(statement.text, params);
    return result.records.map((record) => record.toObject() as T);
  }

  private query(tx: ManagedTransaction): Query {
    return <T = Row>(name: StatementName, params: Record<string, unknown> = {}) => this.runStatement<T>(tx, this.statements.byName[name], params);
  }

  /**
   * `call` on `session`, closed after it. A call with no answer after `limitMs` (Neo4j frozen, or cut off by the
   * network without the connection closing) is 503 store_unavailable then; the call itself goes on, and its session
   * is closed once it settles. Neo4j is not asked to end the transaction: a slow erase or bulk batch completes as it
   * did before this limit (its caller then had its connection cut at IDLE_TIMEOUT_MS), and a write answered 503 may
   * have happened, as README says of any.
   */
  private async bounded<T>(session: Session, call: () => Promise<T>, limitMs: number): Promise<T> {
    const running = call();
    let timer: NodeJS.Timeout | undefined;
    // An infinite limit (start-up's own steps) never comes.
    const late = new Promise<typeof LATE>((resolve) => {
      if (Number.isFinite(limitMs)) timer = setTimeout(resolve, limitMs, LATE);
    });
    const settled = running.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const outcome = await Promise.race([settled, late]).finally(() => clearTimeout(timer));
    if (outcome === LATE) {
      void settled.then(() => session.close().catch(() => undefined));
      throw new DomainError('store_unavailable', `Neo4j did not answer within ${limitMs / 1000} s.`);
    }
    await session.close().catch(() => undefined);
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /** `work` in one read transaction, within `limitMs` (see bounded). */
  private async read<T>(work: (q: Query) => Promise<T>, limitMs = this.callTimeoutMs): Promise<T> {
    const session = this.session('READ');
    try {
      return await this.bounded(session, () => session.executeRead((tx) => work(this.query(tx))), limitMs);
    } catch (e) {
      throw toStoreError(e);
    }
  }

  /**
   * Runs `work` as one write transaction. The driver retries transient failures; a write that ran into a vertex
   * a concurrent transaction deleted is run again here (nothing of it was committed). DomainErrors thrown by
   * `work` roll the transaction back and come out unchanged; a uniqueness violation becomes `onConstraintViolation()`.
   *
   * Neo4j can commit a transaction whose reply then never reaches us (the connection breaks), and the driver runs
   * it again. Run blindly, the write would trip over its own effect (node_exists, id_exists) or happen twice (a
   * second delivery). So each call has one write id, made here, outside the driver's retries; `work` stores it, in
   * the same transaction, on what it writes (`lastWrite`), where it is committed with the write or not at all.
   * An attempt that starts after an earlier one got as far as its commit first asks `ifCommitted` whether that
   * commit went through, and then answers what it answered, without writing again. The driver retries a second or
   * more later, when a commit Neo4j received has long been applied; should another call write the same vertex in
   * that time, the mark is overwritten and the write runs again as it would have without it.
   */
  private async write<T>(work: (q: Query, writeId: string) => Promise<T>, options: WriteOptions<T> = {}): Promise<T> {
    const writeId = randomUUID();
    let reachedCommit = false;
    const session = this.session('WRITE');
    const attempts = async (): Promise<T> => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await session.executeWrite(async (tx) => {
            const q = this.query(tx);
            if (reachedCommit && options.ifCommitted) {
              const earlier = await options.ifCommitted(q, writeId);
              if (earlier) return earlier.result;
            }
            const result = await work(q, writeId);
            // The driver commits when `work` resolves: a later attempt may follow a commit that went through.
            reachedCommit = true;
            return result;
          });
        } catch (e) {
          if (attempt < WRITE_ATTEMPTS && isEntityNotFound(e)) continue;
          throw toStoreError(e, options.onConstraintViolation);
        }
      }
    };
    return this.bounded(session, attempts, options.limitMs ?? this.callTimeoutMs);
  }

  /**
   * Runs cypher/schema/ (each statement IF NOT EXISTS, or IF EXISTS for what an earlier version made), then, with
   * `awaitIndexes`, waits until every index is online. At start-up, and when a check finds one missing.
   */
  async applySchema(options = { awaitIndexes: true }): Promise<void> {
    for (const statement of this.statements.schema) {
      for (let attempt = 1; ; attempt += 1) {
        // One statement per transaction: Neo4j does not mix schema commands with anything else in a transaction.
        const session = this.session('WRITE');
        try {
          await session.executeWrite((tx) => this.runStatement(tx, statement, {}));
          break;
        } catch (e) {
          if (isUnavailable(e) || neo4jCode(e)?.startsWith('Neo.ClientError.Security.')) throw e;
          // Another service made the same constraint or index at the same moment (several applying cypher/schema/
          // to an empty database: 1 round in 8 with four of them): IF NOT EXISTS looked before its commit. Once
          // more finds it there; a conflict that stays is refused again.
          if (attempt === 1 && MADE_AT_THE_SAME_MOMENT.has(neo4jCode(e) ?? '')) continue;
          // Neo4j's message for a uniqueness constraint it cannot make quotes the values it found twice (IDs, maybe
          // secure ones), and whoever catches this logs its message: only the statement and Neo4j's code go on.
          throw new Error(`Neo4j refused ${statement.file} (${neo4jCode(e) ?? 'no Neo4j code'}).`, { cause: e });
        } finally {
          await session.close().catch(() => undefined);
        }
      }
    }
    // Not a request: its own time limit, which Neo4j enforces.
    if (options.awaitIndexes) await this.read((q) => q('store.await-indexes', { timeoutSeconds: int(AWAIT_INDEXES_SECONDS) }), Infinity);
  }

  /** The constraints and indexes of cypher/schema/ that Neo4j does not have (none, normally). */
  async missingSchema(): Promise<SchemaObject[]> {
    const expected = schemaObjects(this.statements.schema);
    const [row] = await this.read((q) => q<{ present: string[] }>('store.schema-in-place', { names: expected.map((o) => o.name) }));
    const present = new Set(row?.present ?? []);
    return expected.filter((o) => !present.has(o.name));
  }

  async ping(): Promise<void> {
    // An auto-commit query rather than executeRead: executeRead would retry an unreachable server for
    // maxTransactionRetryTime, and /readyz should answer at once. A server that stopped answering without closing
    // the connection (frozen, or cut off by the network) would keep the query waiting: PING_TIMEOUT_MS bounds it.
    const session = this.session('READ');
    try {
      await this.bounded(session, async () => void (await session.run(this.statements.byName['store.ping'].text)), PING_TIMEOUT_MS);
    } catch {
      throw storeUnavailable();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.driver.close();
  }

  // ---- schemas (./neo4j-schemas.ts)

  putSchema(customerId: string, schema: SchemaRecord): Promise<PutSchemaOutcome> {
    const ifCommitted: IfCommitted<PutSchemaOutcome> = async (q, writeId) => {
      const outcome = await this.schemas.putBy(q, customerId, schema.schemaId, writeId);
      return outcome ? { result: outcome } : undefined;
    };
    return this.write((q, writeId) => this.schemas.put(q, customerId, schema, writeId), { ifCommitted });
  }

  getSchema(customerId: string, schemaId: string): Promise<SchemaRecord | undefined> {
    return this.read((q) => this.schemas.get(q, customerId, schemaId));
  }

  listSchemas(customerId: string): Promise<SchemaRecord[]> {
    return this.read((q) => this.schemas.list(q, customerId));
  }

  deleteSchema(customerId: string, schemaId: string): Promise<void> {
    return this.write((q, writeId) => this.schemas.delete(q, customerId, schemaId, writeId), {
      // Should a node's IN_SCHEMA relationship still commit first, Neo4j refuses to delete a vertex that has a
      // relationship it did not delete (a constraint violation): the schema is then in use after all.
      onConstraintViolation: () => schemaInUse(schemaId),
      // A delete leaves nothing to carry its mark; the schema being gone after an attempt that reached its commit
      // means that commit went through (or another delete of it did meanwhile: either way it is deleted).
      ifCommitted: async (q) => ((await this.schemas.isGone(q, customerId, schemaId)) ? COMMITTED : undefined),
    });
  }

  async customerPolicy(customerId: string): Promise<CustomerPolicy> {
    return (await this.read((q) => this.schemas.policy(q, customerId, null))).policy;
  }

  /** One statement, one round trip: a node write's checks wait for this read alone. */
  schemaWithPolicy(customerId: string, schemaId: string): Promise<{ schema: SchemaRecord | undefined; policy: CustomerPolicy }> {
    return this.read((q) => this.schemas.policy(q, customerId, schemaId));
  }

  // Settings and blocklist puts replace a whole vertex with what they are given: a driver retry after a commit
  // that went through writes the same again, so they need no ifCommitted.

  async putSettings(customerId: string, settings: CustomerSettings): Promise<CustomerSettings> {
    await this.write((q) => this.schemas.putSettings(q, customerId, settings));
    return { requireToken: settings.requireToken, timezone: settings.timezone };
  }

  async putBlocklist(customerId: string, rules: BlockRule[]): Promise<BlockRule[]> {
    await this.write((q) => this.schemas.putBlocklist(q, customerId, rules));
    return rules;
  }

  // ---- tokens (./neo4j-tokens.ts)

  createToken(token: StoredToken): Promise<void> {
    return this.write((q, writeId) => createToken(q, token, writeId), { ifCommitted: this.tokenWritten(token.customerId, token.tokenId, undefined) });
  }

  listTokens(customerId: string): Promise<TokenRecord[]> {
    return this.read((q) => listTokens(q, customerId));
  }

  revokeToken(customerId: string, tokenId: string): Promise<boolean> {
    return this.write(
      (q, writeId) => revokeToken(q, customerId, tokenId, writeId),
      // Only a revoke that revoked marks the token; one that found it revoked already answers false again.
      { ifCommitted: this.tokenWritten(customerId, tokenId, true) },
    );
  }

  /** ifCommitted of a token write: the token carries the write id. */
  private tokenWritten<T>(customerId: string, tokenId: string, result: T): IfCommitted<T> {
    return async (q, writeId) => ((await tokenWrittenBy(q, customerId, tokenId, writeId)) ? { result } : undefined);
  }

  findActiveToken(tokenHash: string): Promise<StoredToken | undefined> {
    return this.read((q) => findActiveToken(q, tokenHash));
  }

  // ---- nodes (./neo4j-nodes.ts)

  /**
   * ifCommitted of node writes that end with `last` (a single write, or a bulk batch, which commits only when all
   * its lines were applied): every node write marks its node with the write id, so the node `last` leaves at its
   * address carries it; a delete leaves nothing to carry the mark, and the node being gone after an attempt that
   * reached its commit means that commit went through (or another delete of it did meanwhile: either way it is
   * deleted).
   */
  private nodeWritten(last: { kind: NodeWrite['kind'] | 'rekey'; node: NodeAddress }): IfCommitted<void> {
    return async (q, writeId) => {
      const [row] = await q<{ lastWrite: string | null }>('node.last-write', keyParams(last.node));
      if (last.kind === 'deleteNode') return row === undefined ? COMMITTED : undefined;
      return row?.lastWrite === writeId ? COMMITTED : undefined;
    };
  }

  /** One node write as its own transaction, with its history entry. */
  private writeNode(w: NodeWrite): Promise<void> {
    const { work, onConstraintViolation } = nodeWork(w);
    return this.write(
      async (q, writeId) => {
        const entries: HistoryEntry[] = [];
        await work(q, writeId, new SchemaGuards(), entries, true);
        await appendHistory(q, w.node.customerId, entries);
      },
      { onConstraintViolation, ifCommitted: this.nodeWritten(w) },
    );
  }

  createNode(node: NodeAddress, ids: IdPair[]): Promise<void> {
    return this.writeNode({ kind: 'create', node, ids });
  }

  insertIds(node: NodeAddress, ids: IdPair[]): Promise<void> {
    return this.writeNode({ kind: 'insert', node, ids });
  }

  replaceId(node: NodeAddress, where: IdPair, set: IdPair, upsert: boolean): Promise<void> {
    return this.writeNode({ kind: 'replace', node, where, set, upsert });
  }

  removeId(node: NodeAddress, id: IdPair): Promise<void> {
    return this.writeNode({ kind: 'removeId', node, id });
  }

  deleteNode(node: NodeAddress): Promise<void> {
    return this.writeNode({ kind: 'deleteNode', node });
  }

  rekey(node: NodeAddress, newId: string): Promise<void> {
    const newKey: IdPair = { type: node.key.type, id: newId };
    return this.write((q, writeId) => rekeyInGraph(q, node, newId, writeId), {
      onConstraintViolation: () => nodeExists(node.schemaId, newKey),
      // The node carries the mark under its new key.
      ifCommitted: this.nodeWritten({ kind: 'rekey', node: { ...node, key: newKey } }),
    });
  }

  /** Batches of BULK_BATCH_LINES lines, each one transaction, with refused lines undone alone (./neo4j-bulk.ts). */
  applyNodeWrites(writes: NodeWrite[]): Promise<Array<DomainError | undefined>> {
    return applyInBatches(writes, BULK_BATCH_LINES, (lines) => this.writeNodeBatch(lines));
  }

  /**
   * Runs `lines` in order in one transaction with one write id (RunBatch of ./neo4j-bulk.ts). A line refused with
   * a DomainError, or by a uniqueness constraint (node_exists), rolls the whole transaction back and is answered
   * as a Refusal.
   */
  private async writeNodeBatch(lines: NodeWrite[]): Promise<Refusal | 'unattributed' | undefined> {
    const steps = lines.map((w) => nodeWork(w));
    const alone = steps.length === 1 ? steps[0] : undefined;
    try {
      await this.write(
        async (q, writeId) => {
          const guards = new SchemaGuards();
          const entries: HistoryEntry[] = [];
          for (const [at, step] of steps.entries()) {
            try {
              await step.work(q, writeId, guards, entries, false);
            } catch (e) {
              const error = isDomainError(e) ? e : step.onConstraintViolation && isConstraintViolation(e) ? step.onConstraintViolation() : undefined;
              // Anything else (a deadlock the driver retries, a vertex deleted meanwhile, the store gone) is not the line's.
              if (error === undefined) throw e;
              throw new LineRefused({ at, error });
            }
          }
          // All lines' entries in one statement: the batch commits them all or none.
          await appendHistory(q, lines[0]?.node.customerId ?? '', entries);
        },
        {
          // A uniqueness violation found only at commit is the line's when it is alone, and names no line otherwise.
          onConstraintViolation: () => {
            const error = alone?.onConstraintViolation?.();
            return new LineRefused(error ? { at: 0, error } : 'unattributed');
          },
          ifCommitted: this.nodeWritten(lines[lines.length - 1] as NodeWrite),
        },
      );
      return undefined;
    } catch (e) {
      if (e instanceof LineRefused) return e.refusal;
      throw e;
    }
  }

  getNodeIds(node: NodeAddress): Promise<IdPair[] | undefined> {
    return this.read((q) => nodeIds(q, node));
  }

  // ---- search

  search(query: SearchQuery): Promise<SearchResult> {
    return this.read((q) => searchGraph(q, query));
  }

  graph(query: GraphQuery): Promise<GraphComponent> {
    return this.read((q) => graphOf(q, query));
  }

  // ---- history and erasure

  nodeHistory(customerId: string, schemaId: string, key: IdPair, offset: number, limit: number): Promise<HistoryPage> {
    return this.read((q) => historyPage(q, customerId, schemaId, key, offset, limit));
  }

  /**
   * One transaction (./neo4j-history.ts). No ifCommitted: an attempt run again after a commit whose reply was lost
   * finds nothing left to erase and answers zeros, which is still true of the store.
   */
  erase(request: EraseRequest): Promise<EraseOutcome> {
    return this.write(async (q, writeId) => {
      const { outcome, entries } = await eraseInGraph(q, request, writeId);
      await appendHistory(q, request.customerId, entries);
      return outcome;
    });
  }

  pruneHistory(before: string, limit: number): Promise<number> {
    return this.write((q) => pruneHistory(q, before, limit));
  }

  // ---- deliveries

  listDeliveries(customerId: string, offset: number, limit: number): Promise<DeliveryPage> {
    return this.read((q) => this.deliveries.list(q, customerId, offset, limit));
  }

  getDelivery(customerId: string, deliveryId: number): Promise<Delivery | undefined> {
    return this.read((q) => this.deliveries.get(q, customerId, deliveryId));
  }

  /** ifCommitted of a delivery create or replacement: the delivery that carries the write id, as it was stored. */
  private deliveryWritten(customerId: string): IfCommitted<Delivery> {
    return async (q, writeId) => {
      const delivery = await this.deliveries.writtenBy(q, customerId, writeId);
      return delivery ? { result: delivery } : undefined;
    };
  }

  createDelivery(customerId: string, draft: DeliveryDraft): Promise<Delivery> {
    return this.write((q, writeId) => this.deliveries.create(q, customerId, draft, writeId), { ifCommitted: this.deliveryWritten(customerId) });
  }

  replaceDelivery(customerId: string, deliveryId: number, draft: DeliveryDraft): Promise<Delivery | undefined> {
    return this.write((q, writeId) => this.deliveries.replace(q, customerId, deliveryId, draft, writeId), {
      ifCommitted: this.deliveryWritten(customerId),
    });
  }

  deleteDelivery(customerId: string, deliveryId: number): Promise<boolean> {
    return this.write((q) => this.deliveries.delete(q, customerId, deliveryId), {
      // As for deleteNode: gone after an attempt that reached its commit means deleted.
      ifCommitted: async (q) => ((await this.deliveries.get(q, customerId, deliveryId)) === undefined ? { result: true } : undefined),
    });
  }

  // ---- showing messages (./neo4j-impressions.ts)

  eligibility(person: PersonRequest, day: string, showable = EVERY_DELIVERY): Promise<EligibilityState> {
    // One read transaction: the counts of the deliveries and of the person agree.
    return this.read(async (q) => {
      const deliveries: Delivery[] = [];
      const others: Delivery[] = [];
      for (const delivery of await this.deliveries.all(q, person.customerId)) (showable(delivery) ? deliveries : others).push(delivery);
      if (deliveries.length === 0) return { deliveries, others, person: new Map() };
      // Not those of deleted deliveries whose impressions are still to sweep (deleteDelivery).
      const existing = new Set([...deliveries, ...others].map((d) => d.delivery_id));
      const counts = [...(await personCounts(q, person, day))].filter(([deliveryId]) => existing.has(deliveryId));
      return { deliveries, others, person: new Map(counts) };
    });
  }

  recordImpression(request: ImpressionRequest, check: (state: ImpressionState) => void): Promise<ImpressionOutcome> {
    return this.write((q, writeId) => recordInGraph(q, request, check, writeId), {
      ifCommitted: async (q, writeId) => {
        const counted = await countedBy(q, request, writeId);
        return counted ? { result: counted } : undefined;
      },
    });
  }

  pruneImpressionKeys(before: string, limit: number): Promise<number> {
    return this.write((q) => pruneKeys(q, before, limit));
  }

  sweepDeletedDeliveries(limit: number): Promise<number> {
    return this.write((q, writeId) => this.deliveries.sweepDeleted(q, limit, writeId));
  }
}
