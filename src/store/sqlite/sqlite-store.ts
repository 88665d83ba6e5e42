// The embedded store: better-sqlite3 on one connection, WAL, foreign keys on, prepared statements only.
// Every write is atomic on its own (a savepoint), and writes of one event-loop turn share a commit (see write()).
// This file holds the connection, its transactions, the node writes and erasure; each other concern has a file of
// its own beside it (sqlite-schemas, -tokens, -deliveries, -showing, -history, -search), run inside these transactions.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
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
import { DomainError, isDomainError } from '../../domain/errors';
import type { GraphComponent, GraphQuery } from '../../domain/graph';
import type { BlockRule } from '../../domain/blocklist';
import {
  type CustomerPolicy,
  type CustomerSettings,
  type EraseOutcome,
  type EraseRequest,
  type HistoryPage,
  type IdPair,
  type NodeAddress,
  type HistoryOp,
  type SchemaRecord,
  type SearchQuery,
  type SearchResult,
  idKey,
  sameId,
  type TokenRecord,
} from '../../domain/model';
import {
  eraseTooLarge,
  holderLimitReached,
  limitedIds,
  nodeIdLimitReached,
  type NodeWrite,
  type PutSchemaOutcome,
  type Store,
  type StoredToken,
  wouldPassIdLimit,
} from '../../domain/store';
import { migrations } from './migrations';
import { SqliteDeliveries } from './sqlite-deliveries';
import { SqliteSchemas } from './sqlite-schemas';
import { SqliteTokens } from './sqlite-tokens';
import { ReadPool } from './read-pool';
import { PERSON_SEARCH, SqliteSearch, TOO_BIG_FOR_THE_EVENT_LOOP } from './sqlite-search';
import { SqliteShowing } from './sqlite-showing';
import { type NewEntry, SqliteHistory, type StoredId } from './sqlite-history';

export interface SqliteStoreOptions {
  path: string;
  synchronous?: 'NORMAL' | 'FULL';
  /**
   * SQLITE_READ_WORKERS: threads of the read pool, which runs searches and graphs that visit more than
   * `inlineNodes` nodes on read-only connections of their own; 0 (and always for :memory:): every read inline.
   */
  readWorkers?: number;
  /**
   * SQLITE_INLINE_NODES: the most nodes a search or graph visits on the event loop before it moves to the pool; 0:
   * every search and graph runs on the pool.
   */
  inlineNodes?: number;
}

function openDatabase(options: SqliteStoreOptions): Database.Database {
  const inMemory = options.path === ':memory:';
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(options.path)), { recursive: true });
  const db = new Database(options.path);
  if (!inMemory) db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // 64 MB of page cache (the default is 2 MB): the ID indexes of a million-ID graph stay in memory.
  db.pragma('cache_size = -65536');
  // Deleted content is overwritten with zeros, so an erased value leaves no bytes in free pages (README, Erasure).
  db.pragma('secure_delete = ON');
  return db;
}

function migrate(db: Database.Database): void {
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

// By name, not instanceof: the native addon keeps the SqliteError class of the first copy of better-sqlite3 loaded
// in the process, so a second copy (jest's per-file module registry) would otherwise miss every constraint error.
const sqliteCode = (e: unknown): string | undefined =>
  // Not `instanceof Error` either: that class comes from the first copy's realm (jest gives each test file its own).
  typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'SqliteError' && typeof (e as { code?: unknown }).code === 'string'
    ? String((e as { code?: unknown }).code)
    : undefined;

const isUniqueViolation = (e: unknown): boolean => sqliteCode(e) === 'SQLITE_CONSTRAINT_UNIQUE' || sqliteCode(e) === 'SQLITE_CONSTRAINT_PRIMARYKEY';

const isUnavailable = (e: unknown): boolean => /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|CORRUPT|NOTADB)/.test(sqliteCode(e) ?? '');

/**
 * SQLITE_INLINE_NODES by default: a 1,000-node search holds the event loop for about 8 ms (README, Performance), so
 * the most a read keeps it before moving to the pool is about half a millisecond.
 */
export const DEFAULT_INLINE_NODES = 64;

const storeError = (e: unknown): unknown => (isUnavailable(e) ? new DomainError('store_unavailable', 'The embedded store cannot be used right now.') : e);

function uniqueById(ids: IdPair[]): IdPair[] {
  const seen = new Set<string>();
  return ids.filter((id) => {
    const k = idKey(id);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly s;
  private readonly schemas: SqliteSchemas;
  private readonly tokens: SqliteTokens;
  private readonly deliveries: SqliteDeliveries;
  private readonly showing: SqliteShowing;
  private readonly history: SqliteHistory;
  private readonly reader: SqliteSearch;
  private readonly file: string;
  private readonly readWorkers: number;
  /** Infinity without a read pool. */
  private readonly inlineNodes: number;
  /** Made at the first read that needs it. */
  private pool: ReadPool | undefined;
  private readonly inMemory: boolean;
  private pendingWrites: Array<{ work: () => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void }> = [];

  constructor(options: SqliteStoreOptions) {
    this.db = openDatabase(options);
    migrate(this.db);
    this.schemas = new SqliteSchemas(this.db);
    this.tokens = new SqliteTokens(this.db);
    this.deliveries = new SqliteDeliveries(this.db);
    this.history = new SqliteHistory(this.db);
    this.reader = new SqliteSearch(this.db);
    this.showing = new SqliteShowing(this.db, this.deliveries, this.reader);
    this.file = options.path;
    this.readWorkers = options.path === ':memory:' ? 0 : (options.readWorkers ?? 0);
    this.inlineNodes = this.readWorkers > 0 ? (options.inlineNodes ?? DEFAULT_INLINE_NODES) : Infinity;
    this.inMemory = options.path === ':memory:';
    const db = this.db;
    this.s = {
      ping: db.prepare('SELECT 1').pluck(),
      // max_holders: how many nodes hold an ID, counted up to the limit at most (a hot ID may have millions).
      holders: db.prepare('SELECT COUNT(*) FROM (SELECT 1 FROM node_ids WHERE id_pk = ? LIMIT CAST(? AS INTEGER))').pluck(),
      findNode: db.prepare('SELECT node_pk FROM nodes WHERE customer_id = ? AND schema_id = ? AND key_type = ? AND key_id = ?').pluck(),
      nodeByPk: db.prepare('SELECT schema_id, key_type, key_id FROM nodes WHERE node_pk = ?'),
      keyIdPk: db.prepare('SELECT i.id_pk FROM nodes n JOIN ids i ON i.customer_id = n.customer_id AND i.type = n.key_type AND i.value = n.key_id WHERE n.node_pk = ?').pluck(),
      typeOfId: db.prepare('SELECT type FROM ids WHERE id_pk = ?').pluck(),
      idOfPk: db.prepare('SELECT type, value AS id FROM ids WHERE id_pk = ?'),
      insertNode: db.prepare('INSERT INTO nodes (customer_id, schema_id, key_type, key_id) VALUES (?, ?, ?, ?)'),
      rekeyNode: db.prepare('UPDATE nodes SET key_id = ? WHERE node_pk = ?'),
      deleteNode: db.prepare('DELETE FROM nodes WHERE node_pk = ?'),
      findId: db.prepare('SELECT id_pk FROM ids WHERE customer_id = ? AND type = ? AND value = ?').pluck(),
      insertId: db.prepare('INSERT INTO ids (customer_id, type, value) VALUES (?, ?, ?) ON CONFLICT (customer_id, type, value) DO NOTHING'),
      isHeld: db.prepare('SELECT 1 FROM node_ids WHERE id_pk = ? LIMIT 1').pluck(),
      holds: db.prepare('SELECT 1 FROM node_ids WHERE node_pk = ? AND id_pk = ?').pluck(),
      link: db.prepare('INSERT INTO node_ids (node_pk, id_pk) VALUES (?, ?)'),
      unlink: db.prepare('DELETE FROM node_ids WHERE node_pk = ? AND id_pk = ?'),
      // What deleting a node removes, in the order history lists it: by type, then value.
      heldIdPksSorted: db.prepare('SELECT ni.id_pk FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk WHERE ni.node_pk = ? ORDER BY i.type, i.value').pluck(),
      // NodeAddress.maxIds: a range of the primary key (node_pk, id_pk), read only by writes that may grow the node;
      // 0.5 µs for a node of 5 IDs, 0.22 ms for one of 10,000 (README, Performance).
      heldCount: db.prepare('SELECT COUNT(*) FROM node_ids WHERE node_pk = ?').pluck(),
      nodeIds: db.prepare(
        'SELECT i.type, i.value AS id FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk WHERE ni.node_pk = ? ORDER BY i.type, i.value',
      ),

    };
  }

  private run<T>(work: () => T): Promise<T> {
    if (!this.db.open) return Promise.reject(new DomainError('store_unavailable', 'The embedded store is closed.'));
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
    const group = this.pendingWrites;
    this.pendingWrites = [];
    if (!this.db.open) {
      for (const w of group) w.reject(new DomainError('store_unavailable', 'The embedded store is closed.'));
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
      this.deliveries.forgetDocuments();
      for (const w of group) w.reject(storeError(e));
      return;
    }
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

  async close(): Promise<void> {
    // The connection first, at once: from then on no read makes a pool (read()), and the pooled reads still in
    // flight answer store_unavailable when their threads stop.
    const pool = this.pool;
    this.pool = undefined;
    if (this.db.open) this.db.close();
    await pool?.close();
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

  schemaWithPolicy(customerId: string, schemaId: string): Promise<{ schema: SchemaRecord | undefined; policy: CustomerPolicy }> {
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

  findActiveToken(tokenHash: string): Promise<StoredToken | undefined> {
    return this.run(() => this.tokens.findActive(tokenHash));
  }

  // ---- nodes

  private nodePk(node: NodeAddress): number {
    const pk = this.s.findNode.get(node.customerId, node.schemaId, node.key.type, node.key.id) as number | undefined;
    if (pk === undefined) throw new DomainError('node_not_found', `No node with key ${node.key.type}=${node.key.id} in schema '${node.schemaId}'.`);
    return pk;
  }

  private idPk(customerId: string, id: IdPair): number | undefined {
    return this.s.findId.get(customerId, id.type, id.id) as number | undefined;
  }

  /** Insert first: in bulk loads most IDs are new, and then one statement does. */
  private ensureIdPk(customerId: string, id: IdPair): number {
    const inserted = this.s.insertId.run(customerId, id.type, id.id);
    return inserted.changes > 0 ? Number(inserted.lastInsertRowid) : (this.idPk(customerId, id) as number);
  }

  private holds(nodePk: number, customerId: string, id: IdPair): number | undefined {
    const idPk = this.idPk(customerId, id);
    return idPk !== undefined && this.s.holds.get(nodePk, idPk) !== undefined ? idPk : undefined;
  }

  /** The ids row stays: the write's history entry names the ID (erasure and retention delete it; migration 5). */
  private unlink(nodePk: number, idPk: number): void {
    this.s.unlink.run(nodePk, idPk);
  }

  createNode(node: NodeAddress, ids: IdPair[]): Promise<void> {
    return this.write(() => this.createNodeNow(node, ids));
  }

  /** Refuses (DomainError) only before its first write: applyNodeWrites runs it without a savepoint of its own. */
  private createNodeNow(node: NodeAddress, ids: IdPair[]): void {
    this.schemas.refuseIfChanged(node);
    const held = uniqueById([node.key, ...ids]);
    if (wouldPassIdLimit(node, 0, held.length)) throw nodeIdLimitReached(node);
    this.refuseIfOverHolderLimit(node, held);
    let nodePk: number;
    try {
      nodePk = Number(this.s.insertNode.run(node.customerId, node.schemaId, node.key.type, node.key.id).lastInsertRowid);
    } catch (e) {
      if (isUniqueViolation(e)) throw new DomainError('node_exists', `A node with key ${node.key.type}=${node.key.id} already exists in schema '${node.schemaId}'.`);
      // The domain checked the schema, but a concurrent delete may have removed it since.
      if (sqliteCode(e) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new DomainError('schema_not_found', `Schema '${node.schemaId}' does not exist.`);
      }
      throw e;
    }
    const idPks = held.map((id) => {
      const idPk = this.ensureIdPk(node.customerId, id);
      this.s.link.run(nodePk, idPk);
      return idPk;
    });
    // `held` starts with the key.
    this.record(node, 'create', idPks, [], { keyPk: idPks[0] });
  }

  /**
   * Appends the history entry of a write of `node`, in the write's transaction: the IDs it added and removed as their
   * ids rows; the key's row is looked up unless given.
   */
  private record(node: NodeAddress, op: HistoryOp, added: number[], removed: number[], keys: { keyPk?: number; newKeyPk?: number } = {}): void {
    this.history.append(node.customerId, {
      schemaId: node.schemaId,
      keyType: node.key.type,
      keyPk: keys.keyPk ?? (this.idPk(node.customerId, node.key) as number),
      ...(keys.newKeyPk !== undefined ? { newKeyPk: keys.newKeyPk } : {}),
      op,
      audit: node.audit,
      added,
      removed,
    });
  }

  /** node_id_limit_reached when linking `adding` more IDs would take the node past NodeAddress.maxIds. Inside the write. */
  private refuseIfOverIdLimit(node: NodeAddress, nodePk: number, adding: number): void {
    if (node.maxIds === undefined) return;
    if (wouldPassIdLimit(node, this.s.heldCount.get(nodePk) as number, adding)) throw nodeIdLimitReached(node);
  }

  /**
   * holder_limit_reached when one more node holding one of `adding` (IDs the node does not hold) would take it past
   * its type's maxHolders. Inside the write, where writes run one at a time: the count stays true until commit.
   */
  private refuseIfOverHolderLimit(node: NodeAddress, adding: IdPair[]): void {
    for (const { id, maxHolders } of limitedIds(node, adding)) {
      const idPk = this.idPk(node.customerId, id);
      if (idPk !== undefined && (this.s.holders.get(idPk, maxHolders) as number) >= maxHolders) throw holderLimitReached(id, maxHolders);
    }
  }

  insertIds(node: NodeAddress, ids: IdPair[]): Promise<void> {
    return this.write(() => this.insertIdsNow(node, ids));
  }

  private insertIdsNow(node: NodeAddress, ids: IdPair[]): void {
    this.schemas.refuseIfChanged(node);
    const nodePk = this.nodePk(node);
    for (const id of ids) {
      if (this.holds(nodePk, node.customerId, id) !== undefined) {
        throw new DomainError('id_exists', `The node already holds ${id.type}=${id.id}; nothing was added.`);
      }
    }
    const adding = uniqueById(ids);
    this.refuseIfOverIdLimit(node, nodePk, adding.length);
    this.refuseIfOverHolderLimit(node, adding);
    const idPks = adding.map((id) => {
      const idPk = this.ensureIdPk(node.customerId, id);
      this.s.link.run(nodePk, idPk);
      return idPk;
    });
    this.record(node, 'insert', idPks, []);
  }

  replaceId(node: NodeAddress, where: IdPair, set: IdPair, upsert: boolean): Promise<void> {
    return this.write(() => this.replaceIdNow(node, where, set, upsert));
  }

  private replaceIdNow(node: NodeAddress, where: IdPair, set: IdPair, upsert: boolean): void {
    this.schemas.refuseIfChanged(node);
    const nodePk = this.nodePk(node);
    const whereIdPk = this.holds(nodePk, node.customerId, where);
    const setHeld = this.holds(nodePk, node.customerId, set) !== undefined;
    if (whereIdPk === undefined) {
      if (upsert && !setHeld) {
        this.refuseIfOverIdLimit(node, nodePk, 1);
        this.refuseIfOverHolderLimit(node, [set]);
        const setIdPk = this.ensureIdPk(node.customerId, set);
        this.s.link.run(nodePk, setIdPk);
        this.record(node, 'upsert', [setIdPk], []);
      }
      return;
    }
    if (where.type === set.type && where.id === set.id) return;
    if (setHeld) throw new DomainError('id_exists', `The node already holds ${set.type}=${set.id}.`);
    this.refuseIfOverHolderLimit(node, [set]);
    this.unlink(nodePk, whereIdPk);
    const setIdPk = this.ensureIdPk(node.customerId, set);
    this.s.link.run(nodePk, setIdPk);
    this.record(node, upsert ? 'upsert' : 'update', [setIdPk], [whereIdPk]);
  }

  rekey(node: NodeAddress, newId: string): Promise<void> {
    return this.write(() => {
      this.schemas.refuseIfChanged(node);
      const nodePk = this.nodePk(node);
      if (newId === node.key.id) return;
      const newKey = { type: node.key.type, id: newId };
      if (this.s.findNode.get(node.customerId, node.schemaId, newKey.type, newKey.id) !== undefined) {
        throw new DomainError('node_exists', `A node with key ${newKey.type}=${newKey.id} already exists in schema '${node.schemaId}'.`);
      }
      const heldNewKey = this.holds(nodePk, node.customerId, newKey);
      if (heldNewKey === undefined) this.refuseIfOverHolderLimit(node, [newKey]);
      this.s.rekeyNode.run(newId, nodePk);
      const oldIdPk = this.holds(nodePk, node.customerId, node.key) as number;
      this.unlink(nodePk, oldIdPk);
      const newIdPk = heldNewKey ?? this.ensureIdPk(node.customerId, newKey);
      if (heldNewKey === undefined) this.s.link.run(nodePk, newIdPk);
      this.record(node, 'rekeying', [newIdPk], [oldIdPk], { keyPk: oldIdPk, newKeyPk: newIdPk });
    });
  }

  removeId(node: NodeAddress, id: IdPair): Promise<void> {
    return this.write(() => this.removeIdNow(node, id));
  }

  private removeIdNow(node: NodeAddress, id: IdPair): void {
    const nodePk = this.nodePk(node);
    const idPk = this.holds(nodePk, node.customerId, id);
    if (idPk === undefined) return;
    this.unlink(nodePk, idPk);
    this.record(node, 'delete', [], [idPk]);
  }

  deleteNode(node: NodeAddress): Promise<void> {
    return this.write(() => this.deleteNodeNow(node));
  }

  private deleteNodeNow(node: NodeAddress): void {
    const nodePk = this.nodePk(node);
    const held = this.s.heldIdPksSorted.all(nodePk) as number[];
    const keyPk = this.idPk(node.customerId, node.key) as number;
    this.s.deleteNode.run(nodePk);
    this.record(node, 'delete', [], held, { keyPk });
  }

  /**
   * One IMMEDIATE transaction for the whole batch and a savepoint per write (better-sqlite3 turns a nested
   * transaction into a savepoint): a refused write is rolled back alone, and the batch pays for one commit.
   * A create needs none: every refusal of a create comes before its first write (createNodeNow). SQLite copies each
   * page a savepoint changes into a sub-journal, in memory up to 64 KiB and then in a temporary file: with them a
   * bulk load of creates ran at half the rate (300,000 IDs: 55k IDs/s, 102k without). A fault (not a refusal)
   * fails the whole batch either way.
   */
  applyNodeWrites(writes: NodeWrite[]): Promise<Array<DomainError | undefined>> {
    return this.write(() =>
      writes.map((w) => {
        try {
          if (w.kind === 'create') this.createNodeNow(w.node, w.ids);
          else this.db.transaction(() => this.applyNow(w))();
          return undefined;
        } catch (e) {
          if (isDomainError(e)) return e;
          throw e;
        }
      }),
    );
  }

  private applyNow(w: NodeWrite): void {
    switch (w.kind) {
      case 'create':
        return this.createNodeNow(w.node, w.ids);
      case 'insert':
        return this.insertIdsNow(w.node, w.ids);
      case 'replace':
        return this.replaceIdNow(w.node, w.where, w.set, w.upsert);
      case 'removeId':
        return this.removeIdNow(w.node, w.id);
      case 'deleteNode':
        return this.deleteNodeNow(w.node);
    }
  }

  getNodeIds(node: NodeAddress): Promise<IdPair[] | undefined> {
    return this.run(() => {
      const pk = this.s.findNode.get(node.customerId, node.schemaId, node.key.type, node.key.id) as number | undefined;
      return pk === undefined ? undefined : (this.s.nodeIds.all(pk) as IdPair[]);
    });
  }

  // ---- history and erasure

  nodeHistory(customerId: string, schemaId: string, key: IdPair, offset: number, limit: number): Promise<HistoryPage> {
    // One read transaction, so that the page and the total agree.
    return this.run(() => this.db.transaction(() => this.history.page(customerId, schemaId, key, offset, limit))());
  }

  async erase(request: EraseRequest): Promise<EraseOutcome> {
    const outcome = await this.write(() => this.eraseNow(request));
    // The old pages are in the WAL until a checkpoint copies the new ones over them: checkpointed now, and the WAL
    // truncated, so that no copy of an erased value is left on disk once the erase answered (README, Erasure).
    if (!this.inMemory) await this.run(() => this.db.pragma('wal_checkpoint(TRUNCATE)'));
    return outcome;
  }

  private eraseNow(r: EraseRequest): EraseOutcome {
    const c = r.customerId;
    const holders = this.reader.holdersOf(c, r.id);
    // The erased ID's row may be there with no holder: history still names it.
    const idPk = this.idPk(c, r.id);
    /** The ids rows the erase takes from nodes, or that deleted nodes held. */
    const freed = new Set<number>();
    /** A node's erase entry: the IDs it lost, the erased ones by their row (which will show the type alone), others by type. */
    const eraseEntry = (node: { schemaId: string; key: IdPair; keyPk: number }, lost: number[], erased: ReadonlySet<number>): NewEntry => ({
      schemaId: node.schemaId,
      keyType: node.key.type,
      keyPk: node.keyPk,
      op: 'erase',
      audit: r.audit,
      added: [],
      removed: lost.map((pk): StoredId => (erased.has(pk) ? pk : [this.s.typeOfId.get(pk) as string])),
    });
    const deleteNodeRow = (nodePk: number): number[] => {
      const held = this.s.heldIdPksSorted.all(nodePk) as number[];
      for (const pk of held) freed.add(pk);
      this.s.deleteNode.run(nodePk);
      return held;
    };
    const finish = (erased: ReadonlySet<number>, entries: NewEntry[]) => {
      let lastEntry = this.history.lastEntryPk();
      for (const entry of entries) lastEntry = this.history.append(c, entry);
      this.history.tookAway(freed, lastEntry);
      this.history.erase(erased, lastEntry);
    };
    if (r.scope === 'id') {
      if (holders.length > r.maxNodes) throw eraseTooLarge(r);
      const erased = new Set(idPk === undefined ? [] : [idPk]);
      const entries: NewEntry[] = [];
      let nodesDeleted = 0;
      for (const nodePk of holders) {
        const node = { ...this.nodeRow(nodePk), keyPk: this.s.keyIdPk.get(nodePk) as number };
        if (sameId(node.key, r.id)) {
          entries.push(eraseEntry(node, deleteNodeRow(nodePk), erased));
          nodesDeleted += 1;
        } else {
          this.unlink(nodePk, idPk as number);
          freed.add(idPk as number);
          entries.push(eraseEntry(node, [idPk as number], erased));
        }
      }
      finish(erased, entries);
      this.deliveries.eraseImpressions(c, [r.id]);
      return { nodesDeleted, idsRemoved: holders.length - nodesDeleted };
    }
    // scope person: every node of the component, found as a search with step ALL from every holder finds them.
    const component = holders.length === 0 ? [] : [...this.personOf(holders, r)];
    const nodes = component.map((nodePk) => ({ nodePk, ...this.nodeRow(nodePk), keyPk: this.s.keyIdPk.get(nodePk) as number }));
    // What the person's nodes hold, and every ID their history (followed back through rekeyings) ever named.
    const candidates = this.history.namedByKeys(nodes.map((n) => ({ schemaId: n.schemaId, keyPk: n.keyPk })));
    if (idPk !== undefined) candidates.add(idPk);
    const lost = nodes.map((node) => deleteNodeRow(node.nodePk));
    for (const held of lost) for (const pk of held) candidates.add(pk);
    // A value another node still holds (a `links: false` ID, such as a shared device) is not this person's alone.
    const erased = new Set([...candidates].filter((pk) => this.s.isHeld.get(pk) === undefined));
    // Impressions go with the values: read before finish() turns the rows into tombstones. The ID given counts too
    // when no row names it (impressions recorded against an ID no node ever held).
    const erasedValues = [...erased].map((pk) => this.s.idOfPk.get(pk) as IdPair);
    if (idPk === undefined) erasedValues.push(r.id);
    this.deliveries.eraseImpressions(c, erasedValues);
    finish(
      erased,
      nodes.map((node, i) => eraseEntry(node, lost[i] as number[], erased)),
    );
    return { nodesDeleted: nodes.length, idsRemoved: 0 };
  }

  /** The nodes a search with step ALL reaches from `holders`; eraseTooLarge past the request's bounds. */
  private personOf(holders: number[], r: EraseRequest): Set<number> {
    try {
      return this.reader.traverse(holders, { ...PERSON_SEARCH, ...r }).nodes;
    } catch (e) {
      throw isDomainError(e) && e.code === 'component_too_large' ? eraseTooLarge(r) : e;
    }
  }

  private nodeRow(nodePk: number): { schemaId: string; key: IdPair } {
    const row = this.s.nodeByPk.get(nodePk) as { schema_id: string; key_type: string; key_id: string };
    return { schemaId: row.schema_id, key: { type: row.key_type, id: row.key_id } };
  }

  pruneHistory(before: string, limit: number): Promise<number> {
    return this.write(() => this.history.prune(before, limit));
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

  eligibility(person: PersonRequest, day: string, showable = EVERY_DELIVERY): Promise<EligibilityState> {
    return this.run(() => this.db.transaction(() => this.showing.eligibility(person, day, showable))());
  }

  recordImpression(r: ImpressionRequest, check: (state: ImpressionState) => void): Promise<ImpressionOutcome> {
    return this.write(() => this.showing.record(r, check));
  }

  pruneImpressionKeys(before: string, limit: number): Promise<number> {
    return this.write(() => this.deliveries.pruneKeys(before, limit));
  }

  sweepDeletedDeliveries(limit: number): Promise<number> {
    return this.write(() => this.deliveries.sweepDeleted(limit));
  }

  // ---- search and graph, read by SqliteSearch: on the event loop, and on the read pool past inlineNodes

  search(query: SearchQuery): Promise<SearchResult> {
    return this.read(
      () => this.reader.search(query, this.inlineNodes),
      (pool) => pool.search(query),
    );
  }

  graph(query: GraphQuery): Promise<GraphComponent> {
    return this.read(
      () => this.reader.graph(query, this.inlineNodes),
      (pool) => pool.graph(query),
    );
  }

  /**
   * A read begun on the event loop; past inlineNodes visited nodes it is dropped and run again, whole, on the read
   * pool (a read there sees one snapshot of its own: the two never mix). What the inline attempt cost is bounded by
   * inlineNodes; small reads, the most, never leave the event loop. With inlineNodes 0 every read goes to the pool.
   */
  private read<T>(inline: () => T, pooled: (pool: ReadPool) => Promise<T>): Promise<T> {
    if (this.inlineNodes === 0) return this.onPool(pooled);
    return this.run(inline).catch((e: unknown) => {
      if (e !== TOO_BIG_FOR_THE_EVENT_LOOP) throw e;
      return this.onPool(pooled);
    });
  }

  private onPool<T>(pooled: (pool: ReadPool) => Promise<T>): Promise<T> {
    // Closed (since an inline attempt, say): no pool may be made after close() destroyed the last one.
    if (!this.db.open) return Promise.reject(new DomainError('store_unavailable', 'The embedded store is closed.'));
    this.pool ??= new ReadPool(this.file, this.readWorkers);
    return pooled(this.pool);
  }
}
