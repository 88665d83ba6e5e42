// The Neo4j store as the service runs it, so that the service starts, listens and stops whether or not Neo4j
// answers. Its `store` serves at once; until Neo4jStore.connect has succeeded (Neo4j answers and the constraints and
// indexes of cypher/schema/ are in place) every call fails with store_unavailable, and connect is tried again in
// the background after a back-off that doubles from RETRY_FIRST_MS up to RETRY_MAX_MS. Once connected, every call
// goes to the connected store, whose driver reconnects by itself after later outages; and a check every
// NEO4J_SCHEMA_CHECK_MS applies cypher/schema/ again should Neo4j come back without it (restoreMissingSchema).
//
// A refusal of the settings (user or password, database name) is tried again too, logged at error level with the
// variable to check, and with a longer back-off (up to REFUSED_RETRY_MAX_MS). Neo4j can refuse good credentials for
// a moment while it starts (a server that opens Bolt before its users are set up), and a password or database fixed
// on Neo4j's side then takes effect without a restart of the service; the longer wait keeps a misconfigured instance
// from setting off Neo4j's lock after repeated failed logins (3, then 5 s) for the instances sharing its user.
import { setTimeout as delay } from 'node:timers/promises';
import { DomainError, isDomainError } from '../../domain/errors';
import type { StorePorts } from '../../domain/ports/store-ports';
import type { Logger } from '../../logger';
import { isUnavailable, neo4jCode } from './driver-errors';
import { DEFAULT_SCHEMA_CHECK_MS, describeConnection, type Neo4jConnection, Neo4jStore } from './neo4j-store';
import { loadStatements, type SchemaObject, type Statements } from './statements';

/** The first retry waits this long; each next one twice as long as the one before, up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 500;
export const RETRY_MAX_MS = 5_000;
/** The longest wait after Neo4j refused the settings (credentials, database). */
export const REFUSED_RETRY_MAX_MS = 60_000;

/** The same failure, again and again, is logged once and then at most this often. */
const REPEAT_LOG_MS = 60_000;

/**
 * What Neo4j said when it refused these settings, with the variables to check, or undefined when it did not refuse
 * them (it is away, starting, or busy): the user or password (Unauthorized), an expired password, a user without the
 * rights to create constraints, the lock after repeated failed logins, or a database name it does not have.
 */
function settingsRefusal(e: unknown, connection: Neo4jConnection): string | undefined {
  const cause = e instanceof Error && e.cause !== undefined ? e.cause : e;
  const code = neo4jCode(cause) ?? '';
  const said = `${cause instanceof Error ? cause.message : String(cause)} (${code})`;
  const where = describeConnection(connection);
  if (code === 'Neo.ClientError.Database.DatabaseNotFound') return `${where} has no such database: ${said}. Check NEO4J_DATABASE.`;
  if (code.startsWith('Neo.ClientError.Security.')) return `${where} refused user '${connection.username}': ${said}. Check NEO4J_USERNAME and NEO4J_PASSWORD.`;
  return undefined;
}

/** While a call has just failed with store_unavailable, Neo4j is pinged this often until it answers. */
export const PROBE_INTERVAL_MS = 1_000;
/** Pings failed in a row after which Neo4j counts as down: one failed ping may be a broken pooled connection. */
export const DOWN_AFTER_FAILED_PINGS = 2;

const stillConnecting = () => new DomainError('store_unavailable', 'The service is still connecting to Neo4j.');
const neo4jDown = () => new DomainError('store_unavailable', 'Neo4j cannot be reached right now.');
const restoringConstraints = () => new DomainError('store_unavailable', 'Neo4j is missing constraints of this service; it is applying them again.');

type StartupLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

export class ConnectingStore {
  /** Resolves once connected (or once closed before that); it never rejects. */
  readonly started: Promise<void>;
  /**
   * What the service calls: every method of Neo4jStore, called on the connected store through use() (and close,
   * which stops the attempts too). One forwarder for all of them, so a method added to Neo4jStore needs nothing here.
   */
  readonly store: StorePorts & { floor(): Promise<void> };
  private connected: Neo4jStore | undefined;
  private readonly stopping = new AbortController();
  private readonly statements: Statements;
  /** Once connected: checks every schemaCheckMs that cypher/schema/ is still in place (restoreMissingSchema). */
  private schemaWatch: NodeJS.Timeout | undefined;
  /** The check under way, if any: one at a time. */
  private schemaCheck: Promise<void> | undefined;
  /** A constraint is missing: every call answers store_unavailable until cypher/schema/ is applied again. */
  private restoring = false;
  /** Pinging Neo4j after a call failed with store_unavailable, until a ping succeeds (probe). */
  private probing: Promise<void> | undefined;
  /** DOWN_AFTER_FAILED_PINGS pings in a row failed: every call answers store_unavailable at once until one succeeds. */
  private down = false;

  constructor(
    private readonly connection: Neo4jConnection,
    private readonly logger: StartupLogger,
  ) {
    // Read before anything else: a missing statement file stops the start before the service listens.
    this.statements = loadStatements();
    this.started = this.keepConnecting();
    // Neo4jStore.prototype: what the methods are (and their types); the connected store: what runs them.
    const forwarders = new Map<PropertyKey, (...args: unknown[]) => Promise<unknown>>();
    this.store = new Proxy(Neo4jStore.prototype, {
      get: (prototype, property) => {
        if (property === 'close') return () => this.close();
        if (typeof Reflect.get(prototype, property) !== 'function') return undefined;
        let forwarder = forwarders.get(property);
        if (forwarder === undefined) {
          forwarder = (...args: unknown[]) => this.forward(property, args);
          forwarders.set(property, forwarder);
        }
        return forwarder;
      },
    });
  }

  /** Calls the connected store's method `property` with `args`, through use(). */
  private forward(property: PropertyKey, args: unknown[]): Promise<unknown> {
    return this.use(async (store) => {
      const method: unknown = Reflect.get(store, property);
      if (typeof method !== 'function') throw new TypeError(`The connected store has no method ${String(property)}.`);
      const answer: unknown = await Reflect.apply(method, store, args);
      return answer;
    });
  }

  private async keepConnecting(): Promise<void> {
    const { signal } = this.stopping;
    const where = describeConnection(this.connection);
    const since = Date.now();
    let wait = RETRY_FIRST_MS;
    let logged: { reason: string; at: number } | undefined;
    for (let attempt = 1; !signal.aborted; attempt += 1) {
      try {
        const store = await Neo4jStore.connect(this.connection, { statements: this.statements, signal });
        if (signal.aborted) {
          await store.close();
          return;
        }
        this.connected = store;
        this.logger.info('connected to Neo4j', {
          neo4j: where,
          attempts: attempt,
          waited_ms: Date.now() - since,
          migrations_applied: store.migrated,
        });
        this.schemaWatch = setInterval(() => void this.checkSchema(), this.connection.schemaCheckMs ?? DEFAULT_SCHEMA_CHECK_MS).unref();
        return;
      } catch (e) {
        if (signal.aborted) return;
        const refusal = settingsRefusal(e, this.connection);
        const reason = refusal ?? (e instanceof Error ? e.message : String(e));
        wait = Math.min(wait, refusal ? REFUSED_RETRY_MAX_MS : RETRY_MAX_MS);
        const now = Date.now();
        if (logged?.reason !== reason || now - logged.at >= REPEAT_LOG_MS) {
          const details = { error: reason, attempts: attempt, retry_in_ms: wait };
          // Neo4j away or still starting is expected (warn); a refusal or anything else (a statement it refuses) is not.
          const expected = !refusal && isUnavailable(e instanceof Error ? e.cause : undefined);
          const message = refusal
            ? 'Neo4j refused the connection settings; retrying in the background'
            : 'cannot connect to Neo4j yet; retrying in the background';
          this.logger[expected ? 'warn' : 'error'](message, details);
          logged = { reason, at: now };
        }
        await delay(wait, undefined, { signal }).catch(() => undefined);
        wait *= 2;
      }
    }
  }

  private use<T>(call: (store: Neo4jStore) => Promise<T>): Promise<T> {
    if (this.restoring) return Promise.reject(restoringConstraints());
    const store = this.connected;
    if (!store) return Promise.reject(stillConnecting());
    if (this.down) return Promise.reject(neo4jDown());
    return call(store).catch((e: unknown) => {
      if (isDomainError(e) && e.code === 'store_unavailable') this.probing ??= this.probe(store).finally(() => (this.probing = undefined));
      throw e;
    });
  }

  /**
   * Fails fast while Neo4j is known to be down. Without this, each request sent during an outage waited for the
   * driver's retries (10–25 s) before its 503, and held a connection of the client's meanwhile. After a call fails
   * with store_unavailable, Neo4j is pinged every PROBE_INTERVAL_MS (each ping bounded to 3 s) until a ping
   * succeeds; once DOWN_AFTER_FAILED_PINGS in a row have failed, every call answers store_unavailable at once,
   * /readyz included, until one succeeds. A single failure (a broken pooled connection, a call past
   * NEO4J_CALL_TIMEOUT_MS on a live server) costs nothing while the next ping succeeds.
   */
  private async probe(store: Neo4jStore): Promise<void> {
    const { signal } = this.stopping;
    for (let failed = 0; !signal.aborted;) {
      try {
        await store.ping();
        if (this.down) this.logger.info('Neo4j answers again; serving requests', { failed_pings: failed });
        this.down = false;
        return;
      } catch {
        failed += 1;
        if (failed === DOWN_AFTER_FAILED_PINGS && !signal.aborted) {
          this.down = true;
          this.logger.warn('Neo4j cannot be reached; answering 503 at once until a ping succeeds', { failed_pings: failed, ping_every_ms: PROBE_INTERVAL_MS });
        }
      }
      await delay(PROBE_INTERVAL_MS, undefined, { signal }).catch(() => undefined);
    }
  }

  /** Looks for what is missing of cypher/schema/ and applies it again (restoreMissingSchema); one check at a time. */
  checkSchema(): Promise<void> {
    this.schemaCheck ??= this.restoreMissingSchema().finally(() => {
      this.schemaCheck = undefined;
    });
    return this.schemaCheck;
  }

  /**
   * The constraints and indexes of cypher/schema/ are applied once, at start-up. A Neo4j that comes back with an
   * empty database (a server restarted without its data), or from which someone dropped one, has lost them, and
   * without its uniqueness constraints two concurrent creates of one key would both succeed. So the connected
   * service looks every NEO4J_SCHEMA_CHECK_MS and applies whatever is missing again. While a constraint is missing,
   * every call answers store_unavailable until all of cypher/schema/ is in place and online, as at start-up; a
   * missing index alone is built again while the service keeps serving. A failed attempt (the constraint cannot be
   * made: the data it should have kept unique is not, now) is logged and tried again at the next check.
   */
  private async restoreMissingSchema(): Promise<void> {
    const store = this.connected;
    if (!store || this.stopping.signal.aborted) return;
    let missing: SchemaObject[];
    try {
      missing = await store.missingSchema();
    } catch {
      // Neo4j away: /readyz and the calls say so already; the next check looks again.
      return;
    }
    if (missing.length === 0) {
      // In place, made by an attempt that then failed to see every index online (a constraint exists once made).
      if (this.restoring) this.logger.info('cypher/schema/ is in place on Neo4j again');
      this.restoring = false;
      return;
    }
    const constraints = missing.some((m) => m.constraint);
    if (constraints) this.restoring = true;
    this.logger.warn('Neo4j lacks constraints or indexes of cypher/schema/ (a database that came back empty?); applying them again', {
      missing: missing.map((m) => m.name),
      serving: !constraints,
    });
    try {
      await store.applySchema({ awaitIndexes: constraints });
      this.restoring = false;
      this.logger.info('applied cypher/schema/ to Neo4j again', { missing: missing.map((m) => m.name) });
    } catch (e) {
      if (this.stopping.signal.aborted) return;
      this.logger.error('applying cypher/schema/ to Neo4j again failed; trying again at the next check', { error: e instanceof Error ? e.message : String(e) });
    }
  }

  /** Stops the attempts (one under way is abandoned at once) and closes the connected store, if any. */
  async close(): Promise<void> {
    this.stopping.abort();
    clearInterval(this.schemaWatch);
    await this.started.catch(() => undefined);
    await this.connected?.close();
    // Both end soon once the driver is closed and the signal aborted; they catch what that makes their calls throw.
    await this.schemaCheck;
    await this.probing;
  }
}
