// The Neo4j store. One driver per store (one store per process), checked with verifyConnectivity and closed by
// close(); every statement is a file under cypher/ (./statements.ts). Neo4j integers come back as JS numbers
// (disableLosslessIntegers) and integer parameters go out as Neo4j integers (int()). This file connects and maps
// each port call to a read or a write transaction (./neo4j-transactions.ts, which owns sessions, retries and
// what a lost commit reply means); what each call does inside its transaction is in a file of its own beside it
// (neo4j-nodes and -node-writes, -schemas, -tokens, -deliveries, -impressions, -history, -search, -graph, -bulk).
//
// The graph (drawn in docs/neo4j.md): (:IdNode)-[:LINKED]->(:Id) for nodes and the IDs they hold,
// (:IdNode)-[:IN_SCHEMA]->(:Schema) (the schema cannot be deleted under a node, as a foreign key would ensure),
// (:Schema)-[:DECLARES {position}]->(:IdType) for schemas, :SchemaGuard vertices (./schema-guards.ts), and
// :Token, :Delivery, :Sequence vertices. Every vertex carries its customer, and LINKED never joins two customers,
// so a traversal stays in one customer.
import { randomBytes } from 'node:crypto';
import neo4j, { type Driver } from 'neo4j-driver';
import { type Delivery, type DeliveryDraft, type DeliveryPage, type EligibilityState, type ImpressionOutcome, withCounts } from '../../domain/deliveries';
import type { DomainError } from '../../domain/errors';
import { present } from '../../domain/invariant';
import type { BlockRule } from '../../domain/blocklist';
import {
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
import type { PutSchemaOutcome, SchemaWithPolicy } from '../../domain/ports/protections';
import type { CheckedImpression, CheckedPerson } from '../../domain/ports/showing';
import type { CheckedNode, NodeWrite } from '../../domain/ports/node-writes';
import type { ChangeRead } from '../../domain/ports/changes';
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
import type { TraversalReads } from '../checked-reads';
import type { StorePorts } from '../../domain/ports/store-ports';
import type { StoredToken, TokenLookup } from '../../domain/ports/tokens';
import { mapiTokenRevoked, policyChanged } from '../../domain/refusals';
import { changeHeads, changesPage, eraseInGraph, historyPage, pruneHistory } from './neo4j-history';
import { ChangeWatch } from './change-watch';
import { snapshotInGraph } from './neo4j-snapshot';
import { DEFAULT_IMPORT_STALE_MS, IMPORT_BATCH_WEIGHT, IMPORT_BATCHES_AT_ONCE, Neo4jImport, refuseIfImporting } from './neo4j-import';
import type { Snapshot, SnapshotOptions } from '../../domain/ports/snapshots';
import type { ImportBatch, ImportBatching, ImportRefusal } from '../../domain/ports/imports';
import { separateInGraph, separationsInGraph, unseparateInGraph } from './neo4j-separations';
import { type Catalogue, countsOf as deliveryCountsOf, Neo4jDeliveries } from './neo4j-deliveries';
import { Neo4jSchemas, type PolicyAsk, type PolicyRow, schemaInUse } from './neo4j-schemas';
import {
  createToken,
  findActiveToken,
  findActiveTokens,
  isActiveMapiOf,
  keptTokens,
  listTokens,
  putKeptTokens,
  RecentMapiTokens,
  revokeToken,
  tokenWrittenBy,
} from './neo4j-tokens';
import type { KeptToken } from '../../domain/ports/inventory';
import { GatheredReads } from './gathered-reads';
import {
  countsOf,
  type PersonAsk,
  personCountsRow,
  personCountsRows,
  type PersonCountsRow,
  pruneKeys,
  recordAllInGraph,
  recordInGraph,
} from './neo4j-impressions';
import { ImpressionGathering } from './gathered-impressions';
import { SharedSearches, searchGraph } from './neo4j-search';
import { checkedGraphOf, graphOf } from './neo4j-graph';
import { whyInGraph, type WhyPolicyRow } from './neo4j-why';
import { nodeIds } from './neo4j-nodes';
import { applyNodeWrites, rekey, writeNode, writeNodeBatch } from './neo4j-node-writes';
import { NodeWriteGathering } from './write-gathering';
import { KeptPolicies } from './kept-policies';
import { CheckedNodeWrites } from './checked-node-writes';
import { againstShowingPolicy, type MarkedPerson, type ShowingPolicies } from './checked-showing';
import { type AppliedMigration, migrate } from './neo4j-migrations';
import {
  COMMITTED,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_RETRY_TIME_MS,
  type IfCommitted,
  type RetrySchedule,
  Transactions,
  type Write,
  type WriteOptions,
} from './neo4j-transactions';
import type { Query } from './query';
import { loadStatements, type SchemaObject, type Statements } from './statements';

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
  /** How long an export may hold the customer's writes back (NEO4J_EXPORT_TIMEOUT_MS); undefined: DEFAULT_EXPORT_TIMEOUT_MS. */
  exportTimeoutMs?: number;
  /**
   * How long an import may go without its process saying it is alive (NEO4J_IMPORT_STALE_MS): the imports this store
   * runs say so every twelfth of it. undefined: DEFAULT_IMPORT_STALE_MS.
   */
  importStaleMs?: number;
}

/**
 * Shared reads (token lookups, policies) that run at once before the next ones wait to go together. Low, so that
 * under load most of them share: a call does several statements one after another, so fewer of one kind are in
 * flight at a time than the calls are.
 */
export const SHARED_READS_AT_ONCE = 2;

/** Most shared reads one statement carries. */
const SHARED_READS_PER_STATEMENT = 64;

/**
 * Impression statements that run at once before the next impressions wait to go together, and the most one statement
 * carries: its deliveries' locks are held until it commits, so the impressions of those deliveries behind it wait.
 */
const IMPRESSIONS_AT_ONCE = 2;
const IMPRESSIONS_PER_STATEMENT = 32;

/** NEO4J_EXPORT_TIMEOUT_MS by default. */
export const DEFAULT_EXPORT_TIMEOUT_MS = 60_000;

/** NEO4J_SCHEMA_CHECK_MS by default. */
export const DEFAULT_SCHEMA_CHECK_MS = 10_000;

const DRIVER_CONFIG = {
  disableLosslessIntegers: true,
  userAgent: 'idlink-service',
  // A call that waits on Neo4j (a lock, a slow query) holds its connection; when all are busy, the next call waits
  // connectionAcquisitionTimeout for one and then fails (store_unavailable, a 503) rather than queueing without end.
  maxConnectionPoolSize: 100,
  // Fail a request within seconds when Neo4j is unreachable, instead of the driver's defaults (30 s, 60 s, 30 s).
  connectionTimeout: 5_000,
  connectionAcquisitionTimeout: 10_000,
  // How long transactions keep retrying transient failures (deadlocks, a leader switch): the driver's own for
  // start-up's schema statements, Transactions' for reads and writes.
  maxTransactionRetryTime: DEFAULT_MAX_RETRY_TIME_MS,
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

/** How often a process reads the database's feed key again (Neo4jStore.feedKey). */
const DEFAULT_FEED_KEY_READ_EVERY_MS = 10_000;

export class Neo4jStore implements StorePorts, TraversalReads {
  private readonly transactions: Transactions;
  private readonly read: Transactions['read'];
  private readonly write: Write;
  private readonly deliveries = new Neo4jDeliveries();
  /**
   * The database's feed key (feed.key.cypher) as last read. It changes only with the database (one that came back
   * empty, or a dump loaded without it): the first call after feedKeyReadEveryMs reads it again, beside the calls,
   * so that every process takes up the one another made then within about that time (until then it may give cursors
   * the others refuse, and take ones it should not).
   */
  private feed: { key: Promise<string>; readAt: number } | undefined;
  feedKeyReadEveryMs = DEFAULT_FEED_KEY_READ_EVERY_MS;
  private readonly changeWatch = new ChangeWatch((customerIds) => this.read((q) => changeHeads(q, customerIds)));
  private readonly schemas = new Neo4jSchemas();
  private readonly searches: SharedSearches;
  private readonly nodeWrites: NodeWriteGathering;
  /** Token lookups and policy reads of concurrent calls share statements (./gathered-reads.ts). */
  private readonly tokens: GatheredReads<string, StoredToken | undefined>;
  private readonly recentTokens = new RecentMapiTokens((tokenHash) => this.tokens.get(tokenHash));
  private readonly policies: GatheredReads<PolicyAsk, PolicyRow | undefined>;
  private readonly keptPolicies = new KeptPolicies();
  /** The checks node writes carry, run against kept or fresh reads of the policy (./checked-node-writes.ts). */
  private readonly checkedWrites = new CheckedNodeWrites({
    kept: (customerId, schemaId) => this.keptPolicies.get(customerId, schemaId),
    fresh: async (customerId, schemaId, keep) => {
      const row = await this.policies.get({ customerId, schemaId });
      const read = this.schemas.policyOf(customerId, row);
      return keep ? this.keptPolicies.keepForWrites(customerId, schemaId, row, read) : read;
    },
  });
  /** The customer's policy for the checks of `_eligible` and `_impression` (./checked-showing.ts). */
  private readonly showingPolicies: ShowingPolicies = {
    kept: (customerId) => this.keptPolicies.get(customerId, null),
    fresh: async (customerId, keep) => {
      const row = await this.policies.get({ customerId, schemaId: null });
      const read = this.schemas.policyOf(customerId, row);
      return keep ? this.keptPolicies.keepForShowing(customerId, row, read) : read;
    },
  };
  private readonly catalogues: GatheredReads<string, Delivery[]>;
  private readonly impressions: ImpressionGathering;
  /** Person counts, shared by reads of the same bounds (their statement's LIMIT). */
  private readonly people: GatheredReads<PersonAsk, PersonCountsRow | undefined>;
  private readonly imports: Neo4jImport;
  /** The upgrades connect applied (./neo4j-migrations.ts): none when the ledger had them all. */
  migrated: AppliedMigration[] = [];

  /**
   * Connects, checks that the database answers, applies cypher/schema/ (constraints and indexes) and the upgrades
   * of what an earlier version wrote that the graph's ledger has not recorded (./neo4j-migrations.ts): one attempt,
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
      store.exportTimeoutMs = connection.exportTimeoutMs ?? DEFAULT_EXPORT_TIMEOUT_MS;
      store.imports.aliveEveryMs = (connection.importStaleMs ?? DEFAULT_IMPORT_STALE_MS) / 12;
      try {
        // A database a service started on before has it all: one read, not a round trip per statement. A read that
        // fails (no such database, say) leaves applying the folder to say why, as it says it on a fresh database.
        if (!(await store.transactions.schemaInPlace().catch(() => false))) await store.applySchema();
      } catch (e) {
        await store.close();
        throw new Error(`${where}: applying the constraints and indexes of cypher/schema/ failed: ${e instanceof Error ? e.message : String(e)}`, {
          cause: e,
        });
      }
      try {
        store.migrated = await migrate({ write: store.write, autoCommit: (name, params) => store.transactions.autoCommit(name, params) });
      } catch (e) {
        await store.close();
        throw new Error(`${where}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      return store;
    } finally {
      options.signal?.removeEventListener('abort', abandon);
    }
  }

  /** Use connect(); this constructor takes a driver that is already checked (tests pass their own). */
  constructor(driver: Driver, database: string, statements: Statements, callTimeoutMs?: number, retry?: RetrySchedule) {
    this.transactions = new Transactions(driver, database, statements, callTimeoutMs, retry);
    this.read = (work, limitMs) => this.transactions.read(work, limitMs);
    this.write = (work, options) => this.transactions.write(work, options);
    this.searches = new SharedSearches(this.read);
    this.imports = new Neo4jImport({
      write: this.write,
      read: this.read,
      writeAlone: (work, limitMs) => this.transactions.writeAlone(work, limitMs),
      autoCommit: (name, params) => this.transactions.autoCommit(name, params),
      schemas: this.schemas,
      deliveries: this.deliveries,
    });
    this.nodeWrites = new NodeWriteGathering(
      (w, committing) => writeNode(this.write, w, committing),
      (lines, limitMs, committing) => writeNodeBatch(this.write, lines, limitMs, committing),
      { limitMs: callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS },
    );
    const { read } = this;
    this.tokens = new GatheredReads(read, {
      key: (tokenHash) => tokenHash,
      alone: findActiveToken,
      together: findActiveTokens,
      atOnce: SHARED_READS_AT_ONCE,
      perStatement: SHARED_READS_PER_STATEMENT,
    });
    this.policies = new GatheredReads(read, {
      key: (ask) => JSON.stringify([ask.customerId, ask.schemaId]),
      alone: (q, ask) => this.schemas.policyRow(q, ask),
      together: (q, asks) => this.schemas.policyRows(q, asks),
      atOnce: SHARED_READS_AT_ONCE,
      perStatement: SHARED_READS_PER_STATEMENT,
    });
    this.catalogues = new GatheredReads(read, {
      key: (customerId) => customerId,
      alone: (q, customerId) => this.deliveries.all(q, customerId),
      together: (q, customerIds) => this.deliveries.allOf(q, customerIds),
      atOnce: SHARED_READS_AT_ONCE,
      perStatement: SHARED_READS_PER_STATEMENT,
    });
    this.people = new GatheredReads(read, {
      key: ({ person: p, day, deliveryIds }) =>
        JSON.stringify([p.customerId, p.user.type, p.user.id, p.unlinkedTypes, day, deliveryIds ?? [], p.mapiToken ?? null]),
      alone: (q, ask) => personCountsRow(q, ask),
      together: personCountsRows,
      partition: ({ person: p }) => `${p.maxNodes} ${p.maxIds}`,
      atOnce: SHARED_READS_AT_ONCE,
      perStatement: SHARED_READS_PER_STATEMENT,
    });
    this.impressions = new ImpressionGathering(
      {
        writeAlone: (work, limitMs) => this.transactions.writeAlone(work, limitMs),
        alone: (q, { request, writeId }) => recordInGraph(q, request, writeId),
        together: recordAllInGraph,
      },
      { limitMs: callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, atOnce: IMPRESSIONS_AT_ONCE, perStatement: IMPRESSIONS_PER_STATEMENT },
    );
  }

  /** Runs cypher/schema/ and, with `awaitIndexes`, waits for the indexes (Transactions.applySchema). */
  applySchema(options = { awaitIndexes: true }): Promise<void> {
    // A database whose schema went (one that came back empty) lost its feed key too: read it again at once.
    this.feed = undefined;
    return this.transactions.applySchema(options);
  }

  /** The constraints and indexes of cypher/schema/ that Neo4j does not have (none, normally). */
  missingSchema(): Promise<SchemaObject[]> {
    return this.transactions.missingSchema();
  }

  ping(): Promise<void> {
    return this.transactions.ping();
  }

  /** store.ping through the read path (an auto-commit query, the store's retries and time limit), unlike ping(). */
  async floor(): Promise<void> {
    await this.read((q) => q('store.ping'));
  }

  close(): Promise<void> {
    this.changeWatch.close();
    this.imports.close();
    return this.transactions.close();
  }

  /**
   * A write of the customer that appends no history, then customer.importing as its last statement (one round trip
   * more): import_in_progress, and nothing written, when another process has begun importing the customer. Writes
   * that append history (of nodes, and separations) check it in that statement (history.append.cypher).
   */
  private customerWrite<T>(customerId: string, work: (q: Query, writeId: string) => Promise<T>, options?: WriteOptions<T>): Promise<T> {
    return this.write(async (q, writeId) => {
      const result = await work(q, writeId);
      await refuseIfImporting(q, customerId);
      return result;
    }, options);
  }

  // ---- schemas (./neo4j-schemas.ts)

  putSchema(customerId: string, schema: SchemaRecord): Promise<PutSchemaOutcome> {
    const ifCommitted: IfCommitted<PutSchemaOutcome> = async (q, writeId) => {
      const outcome = await this.schemas.putBy(q, customerId, schema.schemaId, writeId);
      return outcome ? { result: outcome } : undefined;
    };
    return this.customerWrite(customerId, (q, writeId) => this.schemas.put(q, customerId, schema, writeId), { ifCommitted });
  }

  getSchema(customerId: string, schemaId: string): Promise<SchemaRecord | undefined> {
    return this.read((q) => this.schemas.get(q, customerId, schemaId));
  }

  listSchemas(customerId: string): Promise<SchemaRecord[]> {
    return this.read((q) => this.schemas.list(q, customerId));
  }

  deleteSchema(customerId: string, schemaId: string): Promise<void> {
    return this.customerWrite(customerId, (q, writeId) => this.schemas.delete(q, customerId, schemaId, writeId), {
      // Should a node's IN_SCHEMA relationship still commit first, Neo4j refuses to delete a vertex that has a
      // relationship it did not delete (a constraint violation): the schema is then in use after all.
      onConstraintViolation: () => schemaInUse(schemaId),
      // A delete leaves nothing to carry its mark; the schema being gone after an attempt that reached its commit
      // means that commit went through (or another delete of it did meanwhile: either way it is deleted).
      ifCommitted: async (q) => ((await this.schemas.isGone(q, customerId, schemaId)) ? COMMITTED : undefined),
    });
  }

  async customerPolicy(customerId: string): Promise<CustomerPolicy> {
    return this.schemas.policyOf(customerId, await this.policies.get({ customerId, schemaId: null })).policy;
  }

  /** One statement, as customerPolicy: the policy read answers whether the customer has a schema too. */
  async customerAdmission(customerId: string): Promise<{ policy: CustomerPolicy; hasSchema: boolean }> {
    const row = await this.policies.get({ customerId, schemaId: null });
    return { policy: this.schemas.policyOf(customerId, row).policy, hasSchema: row?.hasSchema ?? false };
  }

  /** One statement, one round trip (shared with concurrent calls). */
  async schemaWithPolicy(customerId: string, schemaId: string): Promise<SchemaWithPolicy> {
    return this.schemas.policyOf(customerId, await this.policies.get({ customerId, schemaId }));
  }

  // Settings and blocklist puts replace a whole vertex with what they are given: a driver retry after a commit
  // that went through writes the same again, so they need no ifCommitted.

  async putSettings(customerId: string, settings: CustomerSettings): Promise<CustomerSettings> {
    await this.customerWrite(customerId, (q) => this.schemas.putSettings(q, customerId, settings));
    return { requireToken: settings.requireToken, timezone: settings.timezone };
  }

  async putBlocklist(customerId: string, rules: BlockRule[]): Promise<BlockRule[]> {
    await this.customerWrite(customerId, (q) => this.schemas.putBlocklist(q, customerId, rules));
    return rules;
  }

  // ---- tokens (./neo4j-tokens.ts)

  createToken(token: StoredToken): Promise<void> {
    return this.write((q, writeId) => createToken(q, token, writeId), { ifCommitted: this.tokenWritten(token.customerId, token.tokenId, undefined) });
  }

  listTokens(customerId: string): Promise<TokenRecord[]> {
    return this.read((q) => listTokens(q, customerId));
  }

  // ---- what the store holds, for npm run migrate: reads of every vertex, without the call's time limit

  async customerIds(): Promise<string[]> {
    const rows = await this.read((q) => q<{ customer: string }>('inventory.customers'), Infinity);
    return rows.map((row) => row.customer);
  }

  keptTokens(): Promise<KeptToken[]> {
    return this.read((q) => keptTokens(q), Infinity);
  }

  putKeptTokens(tokens: KeptToken[]): Promise<void> {
    return this.write((q, writeId) => putKeptTokens(q, tokens, writeId), { limitMs: Infinity });
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

  /** With TokenLookup.recent, answered from the mapi tokens this process found (./neo4j-tokens.ts). */
  findActiveToken(tokenHash: string, lookup?: TokenLookup): Promise<StoredToken | undefined> {
    return this.recentTokens.find(tokenHash, lookup);
  }

  // ---- nodes (checked: ./checked-node-writes.ts; written: ./neo4j-nodes.ts; concurrent single writes go
  // together: ./write-gathering.ts)

  createNode(node: CheckedNode, ids: IdPair[]): Promise<void> {
    return this.checkedWrites.write(node, (address) => this.nodeWrites.apply({ kind: 'create', node: address, ids }));
  }

  insertIds(node: CheckedNode, ids: IdPair[]): Promise<void> {
    return this.checkedWrites.write(node, (address) => this.nodeWrites.apply({ kind: 'insert', node: address, ids }));
  }

  replaceId(node: CheckedNode, where: IdPair, set: IdPair, upsert: boolean): Promise<void> {
    return this.checkedWrites.write(node, (address) => this.nodeWrites.apply({ kind: 'replace', node: address, where, set, upsert }));
  }

  removeId(node: CheckedNode, id: IdPair): Promise<void> {
    return this.checkedWrites.write(node, (address) => this.nodeWrites.apply({ kind: 'removeId', node: address, id }));
  }

  deleteNode(node: CheckedNode): Promise<void> {
    return this.checkedWrites.write(node, (address) => this.nodeWrites.apply({ kind: 'deleteNode', node: address }));
  }

  rekey(node: CheckedNode, newId: string): Promise<void> {
    return this.checkedWrites.rekey(node, (address) => rekey(this.write, address, newId));
  }

  applyNodeWrites(writes: NodeWrite[]): Promise<Array<DomainError | undefined>> {
    return this.checkedWrites.bulk(writes, (addressed) => applyNodeWrites(this.write, addressed));
  }

  getNodeIds(node: NodeAddress): Promise<IdPair[] | undefined> {
    return this.read((q) => nodeIds(q, node));
  }

  // ---- separations (./neo4j-separations.ts). No ifCommitted: run again after a lost commit reply, a separate finds
  // no shared ID left and the ban in place, and answers 0 removed; an unseparate answers separation_not_found.

  separate(request: SeparateRequest): Promise<{ idsRemoved: number }> {
    return this.write((q, writeId) => separateInGraph(q, request, writeId));
  }

  unseparate(customerId: string, a: NodeRef, b: NodeRef, audit: WriteAudit): Promise<void> {
    return this.write((q, writeId) => unseparateInGraph(q, customerId, a, b, audit, writeId));
  }

  listSeparations(customerId: string, offset: number, limit: number): Promise<{ items: Separation[]; total: number }> {
    return this.read((q) => separationsInGraph(q, customerId, offset, limit));
  }

  // ---- search, graph and _why: each reads the policy it is checked against in its own statement. The *WithTypes
  // reads take the types to hide and never step through as given; only tests call them.

  /** One statement with the policy it is checked against (search.one.cypher, search.all.cypher). */
  search(request: SearchRequest): Promise<SearchResult> {
    const { check, ...query } = request;
    return this.searches.search(query, check, (row) => this.schemas.policyOf(query.customerId, row));
  }

  /** One statement with the policy it is checked against (graph.one.cypher, graph.all.cypher), and a second for a large answer. */
  graph(request: GraphRequest): Promise<CheckedGraph> {
    const { check, ...query } = request;
    return this.read((q) => checkedGraphOf(q, query, check, (row) => this.schemas.policyOf(query.customerId, row)));
  }

  /** One statement: why.shortest reads the policy with the starts' schemas, checked here before its answer is used. */
  async why(request: WhyRequest): Promise<CheckedWhy> {
    let policy: CustomerPolicy | undefined;
    const checked = (row: WhyPolicyRow | undefined): string[] => {
      const from = this.schemas.policyOf(request.customerId, row && { ...row, schema: row.fromSchema });
      request.check(from.policy, from.schema, this.schemas.policyOf(request.customerId, row && { ...row, schema: row.toSchema }).schema);
      policy = from.policy;
      return [...from.policy.unlinkedTypes];
    };
    const found = await this.read((q) => whyInGraph(q, { ...request, check: checked }));
    // whyInGraph checks the policy its statement read before it answers.
    if (policy === undefined) throw new Error('why.shortest answered without the policy it is checked against');
    return { found, policy };
  }

  searchWithTypes(query: SearchQuery): Promise<SearchResult> {
    return this.read((q) => searchGraph(q, query));
  }

  graphWithTypes(query: GraphQuery): Promise<GraphComponent> {
    return this.read((q) => graphOf(q, query));
  }

  whyWithTypes(query: WhyQuery): Promise<WhyFound> {
    return this.read((q) => whyInGraph(q, query));
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
    return this.write((q, writeId) => eraseInGraph(q, request, writeId));
  }

  pruneHistory(before: string, limit: number): Promise<number> {
    return this.write((q, writeId) => pruneHistory(q, before, limit, writeId));
  }

  // ---- the change feed (./neo4j-history.ts, ./change-watch.ts)

  // ---- exports (./neo4j-snapshot.ts)

  /** NEO4J_EXPORT_TIMEOUT_MS: how long an export may hold the customer's writes back. */
  exportTimeoutMs = DEFAULT_EXPORT_TIMEOUT_MS;

  async openSnapshot(customerId: string, options: SnapshotOptions): Promise<Snapshot> {
    const held = await this.transactions.hold(this.exportTimeoutMs);
    return snapshotInGraph(held, { schemas: this.schemas, deliveries: this.deliveries }, customerId, options);
  }

  // ---- imports (./neo4j-import.ts)

  importBatching(): Promise<ImportBatching> {
    return Promise.resolve({ weight: IMPORT_BATCH_WEIGHT, atOnce: IMPORT_BATCHES_AT_ONCE });
  }

  beginImport(customerId: string): Promise<void> {
    return this.imports.begin(customerId);
  }

  importBatch(customerId: string, batch: ImportBatch): Promise<ImportRefusal | undefined> {
    return this.imports.batch(customerId, batch);
  }

  finishImport(customerId: string, settings: CustomerSettings, blockRules: BlockRule[]): Promise<void> {
    return this.imports.finish(customerId, settings, blockRules);
  }

  abandonImport(customerId: string): Promise<void> {
    return this.imports.abandon(customerId);
  }

  unfinishedImports(idleMs: number): Promise<string[]> {
    return this.imports.unfinished(idleMs);
  }

  feedKey(): Promise<string> {
    const now = performance.now();
    if (this.feed === undefined) {
      const read = { key: this.readFeedKey(), readAt: now };
      this.feed = read;
      // A failed first read is not kept: the next call asks again.
      read.key.catch(() => {
        if (this.feed === read) this.feed = undefined;
      });
    } else if (now - this.feed.readAt >= this.feedKeyReadEveryMs) {
      // Read again beside the calls, which go on with the key read last; a failed read keeps it until the next time.
      const stale = this.feed;
      stale.readAt = now;
      this.readFeedKey().then(
        (key) => {
          if (this.feed === stale) this.feed = { key: Promise.resolve(key), readAt: performance.now() };
        },
        () => undefined,
      );
    }
    return this.feed.key;
  }

  private readFeedKey(): Promise<string> {
    return this.write((q) => q<{ key: string }>('feed.key', { candidate: randomBytes(32).toString('hex') })).then(([row]) =>
      present(row?.key, 'the key of feed.key'),
    );
  }

  changesAfter(customerId: string, after: number, limit: number): Promise<ChangeRead> {
    return this.read((q) => changesPage(q, customerId, after, limit));
  }

  waitForChange(customerId: string, after: number, signal: AbortSignal): Promise<void> {
    return this.changeWatch.wait(customerId, after, signal);
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
    return this.customerWrite(customerId, (q, writeId) => this.deliveries.create(q, customerId, draft, writeId), {
      ifCommitted: this.deliveryWritten(customerId),
    });
  }

  replaceDelivery(customerId: string, deliveryId: number, draft: DeliveryDraft): Promise<Delivery | undefined> {
    return this.customerWrite(customerId, (q, writeId) => this.deliveries.replace(q, customerId, deliveryId, draft, writeId), {
      ifCommitted: this.deliveryWritten(customerId),
    });
  }

  deleteDelivery(customerId: string, deliveryId: number): Promise<boolean> {
    return this.customerWrite(customerId, (q) => this.deliveries.delete(q, customerId, deliveryId), {
      // As for deleteNode: gone after an attempt that reached its commit means deleted.
      ifCommitted: async (q) => ((await this.deliveries.get(q, customerId, deliveryId)) === undefined ? { result: true } : undefined),
    });
  }

  // ---- showing messages (./neo4j-impressions.ts)

  /**
   * The catalogue, then the person; each read shared with concurrent calls (./gathered-reads.ts). The catalogue is
   * the one this process kept, when it keeps one (Neo4jDeliveries.kept): the person's statement then also answers
   * the catalogue's version and the live counts of the deliveries left to weigh, and when another version is
   * current the request is weighed again against a fresh read. One statement a request instead of two.
   */
  eligibility(checked: CheckedPerson, showable: (delivery: Delivery) => boolean = () => true): Promise<EligibilityState> {
    return againstShowingPolicy(this.showingPolicies, checked, (p, day) => this.eligibilityAgainst(p, day, showable, this.deliveries.kept(p.customerId)));
  }

  private async eligibilityAgainst(
    person: MarkedPerson,
    day: string,
    showable: (delivery: Delivery) => boolean,
    kept: Catalogue | undefined,
  ): Promise<EligibilityState> {
    const deliveries: Delivery[] = [];
    const others: Delivery[] = [];
    for (const delivery of kept?.deliveries ?? (await this.catalogues.get(person.customerId))) (showable(delivery) ? deliveries : others).push(delivery);
    // The person is read only when a delivery could be shown. Without that read, which would check them, a kept
    // catalogue is read again, and a kept policy too.
    if (deliveries.length === 0) {
      if (kept) return this.eligibilityAgainst(person, day, showable, undefined);
      if (person.mapiToken !== undefined && !isActiveMapiOf(person.customerId, await this.findActiveToken(person.mapiToken))) throw mapiTokenRevoked();
      if (person.policyMark !== undefined && (await this.showingPolicies.fresh(person.customerId, true)).mark !== person.policyMark) throw policyChanged();
      return { deliveries, others, person: new Map() };
    }
    const deliveryIds = kept ? deliveries.map((d) => d.deliveryId) : [];
    const row = await this.people.get({ person, day, deliveryIds });
    if (person.mapiToken !== undefined && row?.tokenActive === false) throw mapiTokenRevoked();
    if (kept && (row?.catalogueVersion[0] ?? 0) !== kept.version) {
      this.deliveries.forget(person.customerId, kept.version);
      return this.eligibilityAgainst(person, day, showable, undefined);
    }
    // Not those of deleted deliveries whose impressions are still to sweep (deleteDelivery).
    const existing = new Set([...deliveries, ...others].map((d) => d.deliveryId));
    const counts = [...countsOf(person, row)].filter(([deliveryId]) => existing.has(deliveryId));
    if (!kept) return { deliveries, others, person: new Map(counts) };
    // A kept catalogue's counts are those of its read: the live ones come with the person.
    const live = new Map((row?.live ?? []).map((l) => [l.deliveryId, l]));
    const weighed = deliveries.flatMap((d) => {
      const counted = live.get(d.deliveryId);
      return counted ? [withCounts(d, deliveryCountsOf(counted))] : [];
    });
    return { deliveries: weighed, others, person: new Map(counts) };
  }

  recordImpression(request: CheckedImpression): Promise<ImpressionOutcome> {
    return againstShowingPolicy(this.showingPolicies, request.person, (person, day) => this.impressions.record({ ...request, person, day }));
  }

  pruneImpressionKeys(before: string, limit: number): Promise<number> {
    return this.write((q, writeId) => pruneKeys(q, before, limit, writeId));
  }

  sweepDeletedDeliveries(limit: number): Promise<number> {
    return this.write((q, writeId) => this.deliveries.sweepDeleted(q, limit, writeId));
  }
}
