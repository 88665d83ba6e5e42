// The embedded store: better-sqlite3 on one connection, WAL, foreign keys on, prepared statements only.
// Every write is atomic on its own (a savepoint), and writes of one event-loop turn share a commit (see write()).
// This file holds the connection, its transactions and the read pool; each concern has a file of its own beside it
// (sqlite-nodes, -schemas, -tokens, -deliveries, -showing, -history, -search), run inside these transactions.
import path from 'node:path';
import { Piscina } from 'piscina';
import Database from './driver';
import type BetterSqlite3 from 'better-sqlite3';
import { type Delivery, type DeliveryDraft, type DeliveryPage, type EligibilityState, type ImpressionOutcome } from '../../domain/deliveries';
import { DomainError } from '../../domain/errors';
import type { BlockRule } from '../../domain/blocklist';
import {
  type AnswerRoom,
  type CustomerPolicy,
  type CustomerSettings,
  type EraseOutcome,
  type EraseRequest,
  type HistoryPage,
  type IdPair,
  type NodeAddress,
  type SchemaRecord,
  type SearchQuery,
  type SearchResult,
  type TokenRecord,
  type NodeRef,
  type SeparateRequest,
  type Separation,
  type WriteAudit,
} from '../../domain/model';
import type { CheckedNode, NodeWrite } from '../../domain/ports/node-writes';
import { type CheckedImpression, type CheckedPerson, impressionChecked } from '../../domain/ports/showing';
import type { PutSchemaOutcome, SchemaWithPolicy } from '../../domain/ports/protections';
import type {
  CheckedGraph,
  CheckedWhy,
  GraphComponent,
  GraphQuery,
  GraphRequest,
  SearchRequest,
  WhyFound,
  WhyQuery,
  WhyRequest,
} from '../../domain/ports/identity-reads';
import { checkThenGraph, checkThenSearch, checkThenWhy, type TraversalReads } from '../checked-reads';
import type { StorePorts } from '../../domain/ports/store-ports';
import type { ChangeRead } from '../../domain/ports/changes';
import type { StoredToken } from '../../domain/ports/tokens';
import { migrations } from './migrations';
import { SqliteDeliveries } from './sqlite-deliveries';
import { SqliteSchemas } from './sqlite-schemas';
import { SqliteTokens } from './sqlite-tokens';
import { ReadPool } from './read-pool';
import { type InlineBounds, SqliteSearch, TOO_BIG_FOR_THE_EVENT_LOOP } from './sqlite-search';
import { SqliteWhy } from './sqlite-why';
import { SqliteShowing } from './sqlite-showing';
import { SqliteNodes } from './sqlite-nodes';
import { storeError } from './sqlite-errors';
import { type ConnectionOptions, openDatabase } from './connection';
import { type ImportAnswer, type ImportTask, importTask } from './import-writer';
import { feedKeyOf, SqliteHistory } from './sqlite-history';
import { ChangeSignals } from '../change-signals';
import type { Snapshot, SnapshotOptions } from '../../domain/ports/snapshots';
import { fileSnapshot, memorySnapshot } from './sqlite-snapshot';
import { RefusedBatch, SqliteImport } from './sqlite-import';
import type { ImportBatch, ImportBatching, ImportRefusal } from '../../domain/ports/imports';
import type { KeptToken } from '../../domain/ports/inventory';

export interface SqliteStoreOptions extends ConnectionOptions {
  /**
   * SQLITE_READ_WORKERS: threads of the read pool, which runs searches and graphs that read more than the inline
   * bounds on read-only connections of their own; 0 (and always for :memory:): every read inline.
   */
  readWorkers?: number;
  /**
   * SQLITE_INLINE_NODES: the most nodes a search or graph visits on the event loop before it moves to the pool; 0:
   * every search and graph runs on the pool.
   */
  inlineNodes?: number;
  /** SQLITE_INLINE_IDS: the most distinct IDs a search or graph reads on the event loop before it moves to the pool. */
  inlineIds?: number;
  /** SQLITE_INLINE_BYTES: the most characters of IDs a search or graph answers from the event loop before it moves to the pool. */
  inlineBytes?: number;
}

/** A read-only connection to the store's file, for a read that needs a view of its own. */
function openReader(file: string): BetterSqlite3.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

const storeClosed = (): DomainError => new DomainError('store_unavailable', 'The embedded store is closed.');

/**
 * The compiled import writer: beside this file in dist/; when this file runs from src/ (ts-jest), the one in dist/,
 * which the test setup builds first (test/global-setup.js), as `npm start` does.
 */
const IMPORT_WRITER = __filename.endsWith('.ts')
  ? path.resolve(__dirname, '..', '..', '..', 'dist', 'store', 'sqlite', 'import-writer.js')
  : path.join(__dirname, 'import-writer.js');

function migrate(db: BetterSqlite3.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    }).immediate();
  }
}

/**
 * SQLITE_INLINE_NODES by default: a 1,000-node search holds the event loop for about 8 ms (docs/performance.md), so
 * the most a read keeps it before moving to the pool is about half a millisecond.
 */
export const DEFAULT_INLINE_NODES = 64;

/**
 * SQLITE_INLINE_IDS and SQLITE_INLINE_BYTES by default: a few nodes may hold thousands of long IDs, which a count of
 * nodes does not see. 1,024 IDs is 64 nodes of 16 IDs; 64 KB is the answer every connection is always sent with the
 * default RESPONSE_MEMORY_LIMIT and MAX_CONNECTIONS.
 */
export const DEFAULT_INLINE_IDS = 1024;
export const DEFAULT_INLINE_BYTES = 65536;

export class SqliteStore implements StorePorts, TraversalReads {
  private readonly db: BetterSqlite3.Database;
  private readonly s;
  private readonly schemas: SqliteSchemas;
  private readonly tokens: SqliteTokens;
  private readonly deliveries: SqliteDeliveries;
  private readonly showing: SqliteShowing;
  private readonly nodes: SqliteNodes;
  private readonly history: SqliteHistory;
  private readonly imports: SqliteImport;
  private readonly reader: SqliteSearch;
  private readonly whyReader: SqliteWhy;
  private readonly file: string;
  private readonly readWorkers: number;
  /** Undefined without a read pool: every read inline, whatever it reads. */
  private readonly inline: InlineBounds | undefined;
  /** Made at the first read that needs it. */
  private pool: ReadPool | undefined;
  private readonly inMemory: boolean;
  private readonly changeSignals = new ChangeSignals();
  private pendingWrites: Array<{ work: () => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void }> = [];
  private readonly connection: ConnectionOptions;
  /**
   * The file's feed key, made or read at the first call that needs it (not at open: a file opened only to be read,
   * as migrate's source, keeps none), then kept: it never changes.
   */
  private feed: string | undefined;
  /** The import writer's thread (./import-writer.ts), made at the first import batch into a file. */
  private importWriter: Piscina | undefined;
  /** The import batch its thread is writing: the store's own writes wait for it to end. */
  private offloaded: Promise<unknown> | undefined;

  constructor(options: SqliteStoreOptions) {
    this.connection = { path: options.path, ...(options.synchronous ? { synchronous: options.synchronous } : {}) };
    this.db = openDatabase(this.connection);
    migrate(this.db);
    this.schemas = new SqliteSchemas(this.db);
    this.tokens = new SqliteTokens(this.db);
    this.deliveries = new SqliteDeliveries(this.db);
    this.history = new SqliteHistory(this.db);
    this.reader = new SqliteSearch(this.db);
    this.whyReader = new SqliteWhy(this.db);
    this.showing = new SqliteShowing(this.db, this.deliveries, this.reader);
    this.nodes = new SqliteNodes(this.db, this.schemas, this.history, this.deliveries, this.reader);
    this.imports = new SqliteImport(this.db, this.schemas, this.history, this.deliveries);
    this.file = options.path;
    this.readWorkers = options.path === ':memory:' ? 0 : (options.readWorkers ?? 0);
    this.inline =
      this.readWorkers > 0
        ? {
            nodes: options.inlineNodes ?? DEFAULT_INLINE_NODES,
            ids: options.inlineIds ?? DEFAULT_INLINE_IDS,
            bytes: options.inlineBytes ?? DEFAULT_INLINE_BYTES,
          }
        : undefined;
    this.inMemory = options.path === ':memory:';
    this.s = {
      ping: this.db.prepare('SELECT 1').pluck(),
      customerIds: this.db
        .prepare<[], string>(
          'SELECT customer_id FROM schemas UNION SELECT customer_id FROM nodes UNION SELECT customer_id FROM history UNION SELECT customer_id FROM deliveries ' +
            'UNION SELECT customer_id FROM customer_settings UNION SELECT customer_id FROM blocklists UNION SELECT customer_id FROM tokens ' +
            // The counters of a customer whose deliveries were all deleted: the ids it was given are never given again.
            'UNION SELECT customer_id FROM delivery_sequences ORDER BY 1',
        )
        .pluck(),
    };
  }

  private run<T>(work: () => T): Promise<T> {
    if (!this.db.open) return Promise.reject(storeClosed());
    try {
      return Promise.resolve(work());
    } catch (e) {
      return Promise.reject(storeError(e));
    }
  }

  /**
   * Group commit: writes that arrive in the same turn of the event loop share one IMMEDIATE transaction, each
   * in its own savepoint, so a refused write is rolled back alone while the group pays for one commit. Every
   * caller is answered only after the commit, so a write that was answered is on disk.
   */
  private write<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pendingWrites.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.pendingWrites.length === 1) setImmediate(() => this.commitPendingWrites());
    });
  }

  private commitPendingWrites(): void {
    // The import writer holds the file's write lock: the group commits once its batch ends (offload).
    if (this.offloaded !== undefined || this.pendingWrites.length === 0) return;
    const group = this.pendingWrites;
    this.pendingWrites = [];
    if (!this.db.open) {
      for (const w of group) w.reject(storeClosed());
      return;
    }
    const outcomes: Array<{ value: unknown } | { error: unknown }> = [];
    try {
      this.db
        .transaction(() => {
          for (const w of group) {
            try {
              outcomes.push({ value: this.db.transaction(w.work)() });
            } catch (error) {
              outcomes.push({ error });
            }
          }
        })
        .immediate();
    } catch (e) {
      // The commit itself failed: nothing of the group is stored, and documents a later write of the group read
      // back from an earlier one may be in the deliveries' cache.
      this.history.takeAppended();
      this.deliveries.forgetDocuments();
      for (const w of group) w.reject(storeError(e));
      return;
    }
    // Committed: the calls waiting for these customers' next change read it now.
    this.changeSignals.notify(this.history.takeAppended());
    group.forEach((w, i) => {
      const outcome = outcomes[i] as { value: unknown } | { error: unknown };
      if ('error' in outcome) w.reject(storeError(outcome.error));
      else w.resolve(outcome.value);
    });
  }

  ping(): Promise<void> {
    return this.run(() => {
      this.s.ping.get();
    });
  }

  floor(): Promise<void> {
    return this.run(() => {
      this.s.ping.get();
    });
  }

  async close(): Promise<void> {
    // The connection first, at once: from then on no read makes a pool (read()), and the pooled reads still in
    // flight answer store_unavailable when their threads stop.
    const pool = this.pool;
    this.pool = undefined;
    const importWriter = this.importWriter;
    this.importWriter = undefined;
    if (this.db.open) this.db.close();
    // A batch under way is rolled back with its thread: its import is undone at the next start (abandonUnfinished).
    await Promise.all([pool?.close(), importWriter?.destroy()]);
  }

  // ---- schemas, customer policy and tokens (./sqlite-schemas.ts, ./sqlite-tokens.ts)

  putSchema(customerId: string, schema: SchemaRecord): Promise<PutSchemaOutcome> {
    return this.write(() => this.schemas.put(customerId, schema));
  }

  getSchema(customerId: string, schemaId: string): Promise<SchemaRecord | undefined> {
    return this.run(() => this.schemas.get(customerId, schemaId));
  }

  listSchemas(customerId: string): Promise<SchemaRecord[]> {
    return this.run(() => this.schemas.list(customerId));
  }

  deleteSchema(customerId: string, schemaId: string): Promise<void> {
    return this.write(() => this.schemas.delete(customerId, schemaId));
  }

  customerPolicy(customerId: string): Promise<CustomerPolicy> {
    return this.run(() => this.schemas.policy(customerId));
  }

  customerAdmission(customerId: string): Promise<{ policy: CustomerPolicy; hasSchema: boolean }> {
    return this.run(() => ({ policy: this.schemas.policy(customerId), hasSchema: this.schemas.list(customerId).length > 0 }));
  }

  schemaWithPolicy(customerId: string, schemaId: string): Promise<SchemaWithPolicy> {
    return this.run(() => ({ schema: this.schemas.get(customerId, schemaId), policy: this.schemas.policy(customerId) }));
  }

  putSettings(customerId: string, settings: CustomerSettings): Promise<CustomerSettings> {
    return this.write(() => this.schemas.putSettings(customerId, settings));
  }

  putBlocklist(customerId: string, rules: BlockRule[]): Promise<BlockRule[]> {
    return this.write(() => this.schemas.putBlocklist(customerId, rules));
  }

  createToken(token: StoredToken): Promise<void> {
    return this.write(() => this.tokens.create(token));
  }

  listTokens(customerId: string): Promise<TokenRecord[]> {
    return this.run(() => this.tokens.list(customerId));
  }

  revokeToken(customerId: string, tokenId: string): Promise<boolean> {
    return this.write(() => this.tokens.revoke(customerId, tokenId));
  }

  /** Reads the token every time, even for a lookup that a recent answer would do for (TokenLookup): SQLite keeps none. */
  findActiveToken(tokenHash: string): Promise<StoredToken | undefined> {
    return this.run(() => this.tokens.findActive(tokenHash));
  }

  // ---- nodes and erasure (./sqlite-nodes.ts)

  createNode(node: CheckedNode, ids: IdPair[]): Promise<void> {
    return this.write(() => this.nodes.create(node, ids));
  }

  insertIds(node: CheckedNode, ids: IdPair[]): Promise<void> {
    return this.write(() => this.nodes.insert(node, ids));
  }

  replaceId(node: CheckedNode, where: IdPair, set: IdPair, upsert: boolean): Promise<void> {
    return this.write(() => this.nodes.replace(node, where, set, upsert));
  }

  rekey(node: CheckedNode, newId: string): Promise<void> {
    return this.write(() => this.nodes.rekey(node, newId));
  }

  removeId(node: CheckedNode, id: IdPair): Promise<void> {
    return this.write(() => this.nodes.removeId(node, id));
  }

  deleteNode(node: CheckedNode): Promise<void> {
    return this.write(() => this.nodes.delete(node));
  }

  async separate(request: SeparateRequest): Promise<{ idsRemoved: number }> {
    return this.write(() => this.nodes.separate(request));
  }

  async unseparate(customerId: string, a: NodeRef, b: NodeRef, audit: WriteAudit): Promise<void> {
    return this.write(() => this.nodes.unseparate(customerId, a, b, audit));
  }

  async listSeparations(customerId: string, offset: number, limit: number): Promise<{ items: Separation[]; total: number }> {
    // One read transaction, so that the page and the total agree.
    return this.run(() => this.db.transaction(() => this.nodes.separations(customerId, offset, limit))());
  }

  /** One IMMEDIATE transaction for the whole batch, and a savepoint per write but a create (SqliteNodes.apply). */
  applyNodeWrites(writes: NodeWrite[]): Promise<Array<DomainError | undefined>> {
    return this.write(() => this.nodes.apply(writes));
  }

  getNodeIds(node: NodeAddress): Promise<IdPair[] | undefined> {
    return this.run(() => this.nodes.ids(node));
  }

  // ---- history and erasure

  nodeHistory(customerId: string, schemaId: string, key: IdPair, offset: number, limit: number): Promise<HistoryPage> {
    // One read transaction, so that the page and the total agree.
    return this.run(() => this.db.transaction(() => this.history.page(customerId, schemaId, key, offset, limit))());
  }

  async erase(request: EraseRequest): Promise<EraseOutcome> {
    const outcome = await this.write(() => this.nodes.erase(request));
    // The old pages are in the WAL until a checkpoint copies the new ones over them: checkpointed now, and the WAL
    // truncated, so that no copy of an erased value is left on disk once the erase answered (docs/history-and-erasure.md).
    if (!this.inMemory) {
      // Not while an import batch holds the write lock: the checkpoint would wait for it on the event loop.
      await this.whenWriterIdle(() => this.run(() => this.db.pragma('wal_checkpoint(TRUNCATE)')));
    }
    return outcome;
  }

  pruneHistory(before: string, limit: number): Promise<number> {
    return this.write(() => this.history.prune(before, limit));
  }

  // ---- the change feed

  feedKey(): Promise<string> {
    return this.run(() => (this.feed ??= feedKeyOf(this.db)));
  }

  changesAfter(customerId: string, after: number, limit: number): Promise<ChangeRead> {
    // One read transaction, so that the page, the head and what retention took agree.
    return this.run(() => this.db.transaction(() => this.history.changesAfter(customerId, after, limit))());
  }

  waitForChange(customerId: string, after: number, signal: AbortSignal): Promise<void> {
    // A commit between the caller's last read and this call: no need to wait. (Only this process writes the file.)
    if (!this.db.open || this.history.hasChangeAfter(customerId, after)) return Promise.resolve();
    return this.changeSignals.wait(customerId, after, signal);
  }

  // ---- what the store holds, for npm run migrate

  customerIds(): Promise<string[]> {
    return this.run(() => this.s.customerIds.all());
  }

  keptTokens(): Promise<KeptToken[]> {
    return this.run(() => this.tokens.all());
  }

  putKeptTokens(tokens: KeptToken[]): Promise<void> {
    return this.write(() => this.tokens.putKept(tokens));
  }

  // ---- imports (./sqlite-import.ts)

  /**
   * 20,000 records a batch: each commit's fixed cost is spread over many records, and a batch holds the other
   * customers' writes back for about a fifth of a second (bench/results/moves/README.md).
   */
  importBatching(): Promise<ImportBatching> {
    return Promise.resolve({ weight: 20_000, atOnce: 1 });
  }

  beginImport(customerId: string): Promise<void> {
    return this.write(() => this.imports.begin(customerId));
  }

  /**
   * A batch into a file is written by the import writer's thread, while the event loop reads and checks the lines of
   * the next: the bench's million-ID import took 9.7–9.9 s instead of 11.3–11.4 (bench/results/moves/README.md). In
   * memory, one connection is the whole store: the batch is one of its writes.
   */
  async importBatch(customerId: string, batch: ImportBatch): Promise<ImportRefusal | undefined> {
    if (!this.inMemory) return this.offload(customerId, batch);
    try {
      await this.write(() => this.imports.batch(customerId, batch));
      return undefined;
    } catch (e) {
      if (e instanceof RefusedBatch) return e.refusal;
      throw e;
    }
  }

  /**
   * Runs `work` once no import batch is being written, in the same turn as that check, so that no batch can start in
   * between (two imports' batches, say).
   */
  private async whenWriterIdle<T>(work: () => T): Promise<T> {
    while (this.offloaded !== undefined) await this.offloaded.catch(() => undefined);
    return work();
  }

  /**
   * The batch on the import writer's thread, as the only writer of the file: after the writes queued before it, and
   * before those queued while it runs, which then commit as one group.
   */
  private async offload(customerId: string, batch: ImportBatch): Promise<ImportRefusal | undefined> {
    const task: ImportTask = importTask(this.connection, customerId, batch);
    // The batch's promise comes back in an object: returned bare, whenWriterIdle would wait for the batch itself.
    const { writing } = await this.whenWriterIdle(() => {
      if (!this.db.open) throw storeClosed();
      this.commitPendingWrites();
      // The thread ends 5 s after the last batch, and gives back its heap and its connection's page cache.
      this.importWriter ??= new Piscina({ filename: IMPORT_WRITER, minThreads: 0, maxThreads: 1, idleTimeout: 5_000 });
      const running = this.importWriter.run(task) as Promise<ImportAnswer>;
      this.offloaded = running;
      return { writing: running };
    });
    let answer: ImportAnswer | undefined;
    try {
      answer = await writing;
    } catch (e) {
      // Its thread stopped with the store (close), or the batch failed as no refusal explains.
      if (this.db.open) throw e;
    } finally {
      this.offloaded = undefined;
      if (this.pendingWrites.length > 0) setImmediate(() => this.commitPendingWrites());
    }
    // Closed meanwhile, the batch written or not: the import cannot finish, and is undone at the next start.
    if (answer === undefined || !this.db.open) throw storeClosed();
    // What this connection may have read of the customer before the batch: read again.
    if (batch.schemas.length > 0) this.schemas.forget(customerId);
    if (batch.deliveries.length > 0) this.deliveries.forget(customerId);
    if ('refused' in answer) throw new DomainError(answer.refused.code, answer.refused.message);
    return 'refusal' in answer ? answer.refusal : undefined;
  }

  async finishImport(customerId: string, settings: CustomerSettings, blockRules: BlockRule[]): Promise<void> {
    await this.write(() => this.imports.finish(customerId, settings, blockRules));
    // Its entries are in the feed from this commit on (SqliteHistory.changesAfter).
    this.changeSignals.notify([customerId]);
  }

  abandonImport(customerId: string): Promise<void> {
    return this.write(() => this.imports.abandon(customerId));
  }

  unfinishedImports(idleMs: number): Promise<string[]> {
    return this.run(() => this.imports.unfinished(idleMs));
  }

  // ---- exports (./sqlite-snapshot.ts)

  async openSnapshot(customerId: string, options: SnapshotOptions): Promise<Snapshot> {
    return this.run(() => (this.inMemory ? memorySnapshot(this.db, customerId, options) : fileSnapshot(() => openReader(this.file), customerId, options)));
  }

  // ---- deliveries

  listDeliveries(customerId: string, offset: number, limit: number): Promise<DeliveryPage> {
    // One read transaction, so that the page and the total agree even with another process writing.
    return this.run(() => this.db.transaction(() => this.deliveries.list(customerId, offset, limit))());
  }

  getDelivery(customerId: string, deliveryId: number): Promise<Delivery | undefined> {
    return this.run(() => this.deliveries.get(customerId, deliveryId));
  }

  createDelivery(customerId: string, draft: DeliveryDraft): Promise<Delivery> {
    return this.write(() => this.deliveries.create(customerId, draft));
  }

  replaceDelivery(customerId: string, deliveryId: number, draft: DeliveryDraft): Promise<Delivery | undefined> {
    return this.write(() => this.deliveries.replace(customerId, deliveryId, draft));
  }

  deleteDelivery(customerId: string, deliveryId: number): Promise<boolean> {
    return this.write(() => this.deliveries.delete(customerId, deliveryId));
  }

  // ---- showing messages (./sqlite-showing.ts)

  /** The person is checked against the policy read in the same transaction as the counts. */
  eligibility(checked: CheckedPerson, showable: (delivery: Delivery) => boolean = () => true): Promise<EligibilityState> {
    return this.run(() =>
      this.db.transaction(() => {
        const { person, day } = checked.check(this.schemas.policy(checked.customerId));
        return this.showing.eligibility(person, day, showable);
      })(),
    );
  }

  /** The impression is checked against the policy read in its write transaction. */
  recordImpression(r: CheckedImpression): Promise<ImpressionOutcome> {
    return this.write(() => this.showing.record(impressionChecked(r, this.schemas.policy(r.person.customerId))));
  }

  pruneImpressionKeys(before: string, limit: number): Promise<number> {
    return this.write(() => this.deliveries.pruneKeys(before, limit));
  }

  sweepDeletedDeliveries(limit: number): Promise<number> {
    return this.write(() => this.deliveries.sweepDeleted(limit));
  }

  // ---- search, graph and _why, read by SqliteSearch: on the event loop, and on the read pool past the inline bounds.
  // Each read of the port reads the policy and checks its start first (../checked-reads.ts): both reads are
  // function calls here. The *WithTypes reads take the types to hide and never step through as given.

  search(request: SearchRequest): Promise<SearchResult> {
    return checkThenSearch(this, request);
  }

  graph(request: GraphRequest): Promise<CheckedGraph> {
    return checkThenGraph(this, request);
  }

  why(request: WhyRequest): Promise<CheckedWhy> {
    return checkThenWhy(this, request);
  }

  searchWithTypes(query: SearchQuery): Promise<SearchResult> {
    const { inline, pooled } = roomOnce(query);
    return this.read(
      () => this.reader.search(inline, this.inline),
      (pool) => pool.search(pooled()),
    );
  }

  graphWithTypes(query: GraphQuery): Promise<GraphComponent> {
    const { inline, pooled } = roomOnce(query);
    return this.read(
      () => this.reader.graph(inline, this.inline),
      (pool) => pool.graph(pooled()),
    );
  }

  /**
   * As a search: on the event loop while it reads within the inline bounds (a near pair reads a few rows), else run
   * again, whole, on the read pool, so that no `_why` between starts that many nodes hold stalls other requests.
   */
  whyWithTypes(query: WhyQuery): Promise<WhyFound> {
    return this.read(
      () => this.reader.startsThen(query.customerId, (startNodes) => this.whyReader.why(query, startNodes, this.inline)),
      (pool) => pool.why(query),
    );
  }

  /**
   * A read begun on the event loop; past the inline bounds (nodes visited, IDs read, characters of IDs answered) it
   * is dropped and run again, whole, on the read pool (a read there sees one snapshot of its own: the two never
   * mix). What the inline attempt cost is bounded by them; small reads, the most, never leave the event loop. With
   * inlineNodes 0 every read goes to the pool.
   */
  private read<T>(inline: () => T, pooled: (pool: ReadPool) => Promise<T>): Promise<T> {
    if (this.inline?.nodes === 0) return this.onPool(pooled);
    return this.run(inline).catch((e: unknown) => {
      if (e !== TOO_BIG_FOR_THE_EVENT_LOOP) throw e;
      return this.onPool(pooled);
    });
  }

  private onPool<T>(pooled: (pool: ReadPool) => Promise<T>): Promise<T> {
    // Closed (since an inline attempt, say): no pool may be made after close() destroyed the last one.
    if (!this.db.open) return Promise.reject(storeClosed());
    this.pool ??= new ReadPool(this.file, this.readWorkers);
    return pooled(this.pool);
  }
}

/**
 * The query of a read for its inline attempt and for the pool: room the inline attempt took for the answer (before
 * it moved to the pool, so that a refusal is decided on the event loop) is not taken again there.
 */
function roomOnce<Q extends { answerRoom?: AnswerRoom }>(query: Q): { inline: Q; pooled: () => Q } {
  const room = query.answerRoom;
  if (room === undefined) return { inline: query, pooled: () => query };
  let taken = false;
  const inline = {
    ...query,
    answerRoom: {
      freeBytes: room.freeBytes,
      take: (bytes: number) => {
        room.take(bytes);
        taken = true;
      },
    },
  };
  return { inline, pooled: () => (taken ? { ...query, answerRoom: { freeBytes: Infinity, take: () => undefined } } : query) };
}
