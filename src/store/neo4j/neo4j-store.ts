// The Neo4j store. One driver per store (one store per process), checked with verifyConnectivity and closed by
// close(); every statement is a file under cypher/ (./statements.ts); reads run in session.executeRead, each write
// in one session.executeWrite transaction whose function has no effect outside the transaction, so the driver
// may retry it; sessions are closed in `finally`; every session names the database. Neo4j integers come back as
// JS numbers (disableLosslessIntegers) and integer parameters go out as Neo4j integers (int()).
//
// The graph (drawn in the README, section Neo4j): (:IdNode)-[:LINKED]->(:Id) for nodes and the IDs they hold,
// (:IdNode)-[:IN_SCHEMA]->(:Schema) (the schema cannot be deleted under a node, as a foreign key would ensure),
// (:Schema)-[:DECLARES {position}]->(:IdType) for schemas, and :Token, :Delivery, :Sequence vertices. Every vertex
// but :Sequence carries its customer, and LINKED never joins two customers, so a traversal stays in one customer.
import neo4j, { type Driver, type ManagedTransaction, type Session } from 'neo4j-driver';
import type { Delivery, DeliveryDraft, DeliveryPage } from '../../domain/deliveries';
import { DomainError } from '../../domain/errors';
import { type IdPair, type NodeAddress, type SchemaRecord, type SearchQuery, type SearchResult, sameId, type TokenRecord } from '../../domain/model';
import { applyOneByOne } from '../one-by-one';
import type { NodeWrite, PutSchemaOutcome, Store, StoredToken } from '../store';
import { byTypeThenId, compareCodePoints } from './code-point-order';
import { isEntityNotFound, storeUnavailable, toStoreError } from './driver-errors';
import { Neo4jDeliveries } from './neo4j-deliveries';
import { searchGraph } from './neo4j-search';
import { int, type Query, type Row } from './query';
import { checkParams, loadStatements, type Statement, type StatementName, type Statements } from './statements';

export interface Neo4jConnection {
  uri: string;
  username: string;
  /** Undefined: connect without authentication (a server with NEO4J_AUTH=none). */
  password: string | undefined;
  database: string;
}

const DRIVER_CONFIG = {
  disableLosslessIntegers: true,
  userAgent: 'idlink-service',
  // Fail a request within seconds when Neo4j is unreachable, instead of the driver's defaults (30 s, 60 s, 30 s).
  connectionTimeout: 5_000,
  connectionAcquisitionTimeout: 10_000,
  // How long executeRead/executeWrite keep retrying transient failures (deadlocks, a leader switch).
  maxTransactionRetryTime: 10_000,
};

/** How long start-up waits for the constraints and indexes to come online. */
const AWAIT_INDEXES_SECONDS = 300;

/** Attempts of a write that touched a vertex a concurrent transaction deleted (see isEntityNotFound). */
const WRITE_ATTEMPTS = 3;

const nodeNotFound = (node: NodeAddress) =>
  new DomainError('node_not_found', `No node with key ${node.key.type}=${node.key.id} in schema '${node.schemaId}'.`);

const nodeExists = (schemaId: string, key: IdPair) =>
  new DomainError('node_exists', `A node with key ${key.type}=${key.id} already exists in schema '${schemaId}'.`);

/** Distinct IDs, in one canonical order: transactions that lock overlapping Id vertices then lock them in the same order. */
function canonicalIds(ids: IdPair[]): IdPair[] {
  const unique = new Map<string, IdPair>();
  for (const id of ids) unique.set(JSON.stringify([id.type, id.id]), { type: id.type, id: id.id });
  return [...unique.values()].sort(byTypeThenId);
}

const keyParams = (node: NodeAddress) => ({
  customer: node.customerId,
  schema: node.schemaId,
  keyType: node.key.type,
  keyId: node.key.id,
});

interface DeclaredType {
  type: string;
  secure: boolean;
  position: number;
}

const toSchemaRecord = (schemaId: string, declared: DeclaredType[]): SchemaRecord => ({
  schemaId,
  idTypes: [...declared].sort((a, b) => a.position - b.position).map((t) => ({ type: t.type, secure: t.secure })),
});

interface TokenRow {
  tokenId: string;
  customerId: string;
  kind: 'bearer' | 'mapi';
  label: string | null;
  createdAt: string;
  tokenHash?: string;
}

const toTokenRecord = (row: TokenRow): TokenRecord => ({
  tokenId: row.tokenId,
  customerId: row.customerId,
  kind: row.kind,
  label: row.label ?? null,
  createdAt: row.createdAt,
});

export class Neo4jStore implements Store {
  private closed = false;
  private readonly deliveries = new Neo4jDeliveries();

  /**
   * Connects, checks that the database answers, and applies cypher/schema/ (constraints and indexes). The
   * statement files are read first, so a missing one stops start-up before any connection is made.
   */
  static async connect(connection: Neo4jConnection, cypherDir?: string): Promise<Neo4jStore> {
    const statements = loadStatements(cypherDir);
    // No password: no auth token, which the driver sends as scheme 'none'.
    const auth = connection.password === undefined ? undefined : neo4j.auth.basic(connection.username, connection.password);
    const driver = neo4j.driver(connection.uri, auth, DRIVER_CONFIG);
    const where = `Neo4j at ${connection.uri} (database '${connection.database}')`;
    try {
      await driver.verifyConnectivity({ database: connection.database });
    } catch (e) {
      await driver.close();
      throw new Error(`${where} cannot be reached: ${e instanceof Error ? e.message : String(e)}`);
    }
    const store = new Neo4jStore(driver, connection.database, statements);
    try {
      await store.applySchema();
    } catch (e) {
      await store.close();
      throw new Error(`${where}: applying the constraints and indexes of cypher/schema/ failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    return store;
  }

  /** Use connect(); this constructor takes a driver that is already checked (tests pass their own). */
  constructor(
    private readonly driver: Driver,
    private readonly database: string,
    private readonly statements: Statements,
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

  private async read<T>(work: (q: Query) => Promise<T>): Promise<T> {
    const session = this.session('READ');
    try {
      return await session.executeRead((tx) => work(this.query(tx)));
    } catch (e) {
      throw toStoreError(e);
    } finally {
      await session.close().catch(() => undefined);
    }
  }

  /**
   * Runs `work` as one write transaction. The driver retries transient failures; a write that ran into a vertex
   * a concurrent transaction deleted is run again here (nothing of it was committed). DomainErrors thrown by
   * `work` roll the transaction back and come out unchanged; a uniqueness violation becomes `onConstraintViolation()`.
   */
  private async write<T>(work: (q: Query) => Promise<T>, onConstraintViolation?: () => DomainError): Promise<T> {
    const session = this.session('WRITE');
    try {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await session.executeWrite((tx) => work(this.query(tx)));
        } catch (e) {
          if (attempt < WRITE_ATTEMPTS && isEntityNotFound(e)) continue;
          throw toStoreError(e, onConstraintViolation);
        }
      }
    } finally {
      await session.close().catch(() => undefined);
    }
  }

  private async applySchema(): Promise<void> {
    for (const statement of this.statements.schema) {
      // One statement per transaction: Neo4j does not mix schema commands with anything else in a transaction.
      const session = this.session('WRITE');
      try {
        await session.executeWrite((tx) => this.runStatement(tx, statement, {}));
      } finally {
        await session.close().catch(() => undefined);
      }
    }
    await this.read((q) => q('store.await-indexes', { timeoutSeconds: int(AWAIT_INDEXES_SECONDS) }));
  }

  async ping(): Promise<void> {
    // An auto-commit query rather than executeRead: executeRead would retry an unreachable server for
    // maxTransactionRetryTime, and /readyz should answer at once.
    const session = this.session('READ');
    try {
      await session.run(this.statements.byName['store.ping'].text);
    } catch {
      throw storeUnavailable();
    } finally {
      await session.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.driver.close();
  }

  // ---- schemas

  putSchema(customerId: string, schema: SchemaRecord): Promise<PutSchemaOutcome> {
    const customer = customerId;
    const schemaId = schema.schemaId;
    const idTypes = schema.idTypes.map((t) => ({ type: t.type, secure: t.secure }));
    return this.write(async (q) => {
      const [lock] = await q<{ created: boolean }>('schema.lock', { customer, schemaId });
      const created = lock?.created === true;
      // Lock the declared types in name order before reading their flags (see idtype.lock.cypher).
      const byName = [...idTypes].sort((a, b) => compareCodePoints(a.type, b.type));
      await q('idtype.lock', { customer, idTypes: byName });
      const [conflict] = await q<{ type: string; otherSchema: string }>('schema.secure-conflicts', { customer, schemaId, idTypes });
      if (conflict) {
        const declared = idTypes.find((t) => t.type === conflict.type);
        throw new DomainError(
          'secure_flag_conflict',
          `ID type '${conflict.type}' is declared with secure=${!declared?.secure} in schema '${conflict.otherSchema}'; one type has one secure flag per customer.`,
        );
      }
      if (!created) {
        const [held] = await q<{ type: string }>('schema.held-dropped-types', { customer, schemaId, keptTypes: idTypes.map((t) => t.type) });
        if (held) {
          throw new DomainError('schema_in_use', `ID type '${held.type}' cannot be dropped: nodes of schema '${schemaId}' still hold IDs of it.`);
        }
      }
      await q('schema.declare', { customer, schemaId, idTypes });
      await q('idtype.delete-orphans', { customer });
      return { created };
    });
  }

  getSchema(customerId: string, schemaId: string): Promise<SchemaRecord | undefined> {
    return this.read(async (q) => {
      const [row] = await q<{ schemaId: string; idTypes: DeclaredType[] }>('schema.get', { customer: customerId, schemaId });
      return row ? toSchemaRecord(row.schemaId, row.idTypes) : undefined;
    });
  }

  listSchemas(customerId: string): Promise<SchemaRecord[]> {
    return this.read(async (q) => {
      const rows = await q<{ schemaId: string; idTypes: DeclaredType[] }>('schema.list', { customer: customerId });
      return rows.map((row) => toSchemaRecord(row.schemaId, row.idTypes)).sort((a, b) => compareCodePoints(a.schemaId, b.schemaId));
    });
  }

  deleteSchema(customerId: string, schemaId: string): Promise<void> {
    const inUse = () => new DomainError('schema_in_use', `Schema '${schemaId}' still has nodes; remove them first.`);
    return this.write(
      async (q) => {
        const [lock] = await q<{ inUse: boolean }>('schema.lock-for-delete', { customer: customerId, schemaId });
        if (!lock) throw new DomainError('schema_not_found', `Schema '${schemaId}' does not exist.`);
        if (lock.inUse) throw inUse();
        await q('schema.delete', { customer: customerId, schemaId });
        await q('idtype.delete-orphans', { customer: customerId });
      },
      // Should a node's IN_SCHEMA relationship still commit first, Neo4j refuses to delete a vertex that has a
      // relationship it did not delete (a constraint violation): the schema is then in use after all.
      inUse,
    );
  }

  secureTypes(customerId: string): Promise<Set<string>> {
    return this.read(async (q) => new Set((await q<{ type: string }>('idtype.secure', { customer: customerId })).map((r) => r.type)));
  }

  // ---- tokens

  createToken(token: StoredToken): Promise<void> {
    return this.write(async (q) => {
      await q('token.create', {
        tokenId: token.tokenId,
        customer: token.customerId,
        kind: token.kind,
        label: token.label,
        tokenHash: token.tokenHash,
        createdAt: token.createdAt,
      });
    });
  }

  listTokens(customerId: string): Promise<TokenRecord[]> {
    return this.read(async (q) => (await q<TokenRow>('token.list', { customer: customerId })).map(toTokenRecord));
  }

  revokeToken(customerId: string, tokenId: string): Promise<boolean> {
    return this.write(async (q) => {
      const [row] = await q<{ revoked: number }>('token.revoke', { customer: customerId, tokenId, now: new Date().toISOString() });
      return (row?.revoked ?? 0) > 0;
    });
  }

  findActiveToken(tokenHash: string): Promise<StoredToken | undefined> {
    return this.read(async (q) => {
      const [row] = await q<TokenRow & { tokenHash: string }>('token.find-active', { tokenHash });
      return row ? { ...toTokenRecord(row), tokenHash: row.tokenHash } : undefined;
    });
  }

  // ---- nodes

  /** Locks the node for the rest of the transaction (node.lock.cypher) and returns its element id; node_not_found when absent. */
  private async lockNode(q: Query, node: NodeAddress): Promise<string> {
    const [row] = await q<{ node: string }>('node.lock', keyParams(node));
    if (!row) throw nodeNotFound(node);
    // node.lock found the node by its key before it waited for the lock; a rekey that committed meanwhile has
    // moved the node to another key, and SQLite (one writer at a time) would then answer node_not_found. A new
    // statement reads what is committed now that the lock is held.
    const [still] = await q<{ node: string }>('node.find', keyParams(node));
    if (still?.node !== row.node) throw nodeNotFound(node);
    return row.node;
  }

  /** Which of `ids` the (locked) node holds, as a predicate. */
  private async heldAmong(q: Query, nodeElementId: string, ids: IdPair[]): Promise<(id: IdPair) => boolean> {
    const held = await q<IdPair>('node.held-among', { node: nodeElementId, ids: ids.map((id) => ({ type: id.type, id: id.id })) });
    return (id) => held.some((h) => sameId(h, id));
  }

  private async link(q: Query, nodeElementId: string, ids: IdPair[]): Promise<void> {
    if (ids.length > 0) await q('node.link-ids', { node: nodeElementId, ids: canonicalIds(ids) });
  }

  private async unlink(q: Query, nodeElementId: string, id: IdPair): Promise<void> {
    await q('node.unlink-id', { node: nodeElementId, type: id.type, value: id.id });
  }

  createNode(node: NodeAddress, ids: IdPair[]): Promise<void> {
    return this.write(
      async (q) => {
        const [made] = await q('node.create', { ...keyParams(node), ids: canonicalIds([node.key, ...ids]) });
        // The domain checked the schema, but a concurrent removal may have happened since.
        if (!made) throw new DomainError('schema_not_found', `Schema '${node.schemaId}' does not exist.`);
      },
      () => nodeExists(node.schemaId, node.key),
    );
  }

  insertIds(node: NodeAddress, ids: IdPair[]): Promise<void> {
    return this.write(async (q) => {
      const target = await this.lockNode(q, node);
      const holds = await this.heldAmong(q, target, ids);
      const alreadyHeld = ids.find(holds);
      if (alreadyHeld) throw new DomainError('id_exists', `The node already holds ${alreadyHeld.type}=${alreadyHeld.id}; nothing was added.`);
      await this.link(q, target, ids);
    });
  }

  replaceId(node: NodeAddress, where: IdPair, set: IdPair, upsert: boolean): Promise<void> {
    return this.write(async (q) => {
      const target = await this.lockNode(q, node);
      const holds = await this.heldAmong(q, target, [where, set]);
      if (!holds(where)) {
        if (upsert && !holds(set)) await this.link(q, target, [set]);
        return;
      }
      if (sameId(where, set)) return;
      if (holds(set)) throw new DomainError('id_exists', `The node already holds ${set.type}=${set.id}.`);
      await this.unlink(q, target, where);
      await this.link(q, target, [set]);
    });
  }

  rekey(node: NodeAddress, newId: string): Promise<void> {
    const newKey: IdPair = { type: node.key.type, id: newId };
    return this.write(
      async (q) => {
        const target = await this.lockNode(q, node);
        if (newId === node.key.id) return;
        const [taken] = await q('node.find', keyParams({ ...node, key: newKey }));
        if (taken) throw nodeExists(node.schemaId, newKey);
        // A concurrent create or rekey onto the same key fails here on the key constraint (node_exists).
        await q('node.rekey', { node: target, keyId: newId });
        const holds = await this.heldAmong(q, target, [node.key, newKey]);
        if (holds(node.key)) await this.unlink(q, target, node.key);
        if (!holds(newKey)) await this.link(q, target, [newKey]);
      },
      () => nodeExists(node.schemaId, newKey),
    );
  }

  removeId(node: NodeAddress, id: IdPair): Promise<void> {
    return this.write(async (q) => {
      const target = await this.lockNode(q, node);
      await this.unlink(q, target, id);
    });
  }

  deleteNode(node: NodeAddress): Promise<void> {
    return this.write(async (q) => {
      const target = await this.lockNode(q, node);
      await q('node.delete', { node: target });
    });
  }

  /** One transaction per write: a refused write must change nothing, and Neo4j has no savepoints to undo it alone. */
  applyNodeWrites(writes: NodeWrite[]): Promise<Array<DomainError | undefined>> {
    return applyOneByOne(this, writes);
  }

  getNodeIds(node: NodeAddress): Promise<IdPair[] | undefined> {
    return this.read(async (q) => {
      const [row] = await q<{ ids: IdPair[] }>('node.ids', keyParams(node));
      return row ? [...row.ids].sort(byTypeThenId) : undefined;
    });
  }

  // ---- search

  search(query: SearchQuery): Promise<SearchResult> {
    return this.read((q) => searchGraph(q, query));
  }

  // ---- deliveries

  listDeliveries(customerId: string, offset: number, limit: number): Promise<DeliveryPage> {
    return this.read((q) => this.deliveries.list(q, customerId, offset, limit));
  }

  getDelivery(customerId: string, deliveryId: number): Promise<Delivery | undefined> {
    return this.read((q) => this.deliveries.get(q, customerId, deliveryId));
  }

  createDelivery(customerId: string, draft: DeliveryDraft): Promise<Delivery> {
    return this.write((q) => this.deliveries.create(q, customerId, draft));
  }

  replaceDelivery(customerId: string, deliveryId: number, draft: DeliveryDraft): Promise<Delivery | undefined> {
    return this.write((q) => this.deliveries.replace(q, customerId, deliveryId, draft));
  }

  deleteDelivery(customerId: string, deliveryId: number): Promise<boolean> {
    return this.write((q) => this.deliveries.delete(q, customerId, deliveryId));
  }
}
