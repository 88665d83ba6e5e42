// The sessions and transactions of the Neo4j store: every statement it runs goes through here. A read runs each of
// its statements as an auto-commit query, one Bolt round trip each; a write runs in one explicit transaction whose
// BEGIN goes out with its first statement, and whose function has no effect outside the transaction, so that it
// can be run again (and a run again after a lost commit reply answers what the committed attempt did: see
// write()); a write of one statement that checks itself can be one auto-commit query too (writeAlone()). Each
// retries what the driver's managed transactions retry, on the driver's schedule. Sessions are closed
// in `finally`; every session names the database; every call has a time limit (bounded), which Neo4j enforces on
// its transactions too (txConfig). What each call does inside its transaction is in the files beside this one.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import neo4j, { type Driver, type Session, type Transaction } from 'neo4j-driver';
import { DomainError } from '../../domain/errors';
import { isEntityNotFound, isOutOfMemory, isUnavailable, neo4jCode, storeUnavailable, toStoreError } from './driver-errors';
import { int, type Query, type Row } from './query';
import { checkParams, droppedSchemaNames, type SchemaObject, schemaObjects, type Statement, type StatementName, type Statements } from './statements';

/**
 * NEO4J_CALL_TIMEOUT_MS by default: above what a call can take on a live server (the driver's retries of 10 s, a
 * connection's wait of 10 s), below the 60 s after which IDLE_TIMEOUT_MS would cut the client off with no answer.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** What a schema statement fails with when another service created the same constraint or index just before it. */
const MADE_AT_THE_SAME_MOMENT = new Set([
  'Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists',
  'Neo.ClientError.Schema.IndexWithNameAlreadyExists',
  'Neo.ClientError.Schema.ConstraintWithNameAlreadyExists',
]);

/** What a call's timer answers when it beats the call (see Transactions.bounded). */
const LATE: unique symbol = Symbol('late');
const CLOSED: unique symbol = Symbol('closed');
const closedStore = () => new DomainError('store_unavailable', 'The Neo4j store is closed.');

/** How long /readyz waits for Neo4j to answer its ping before it says 503. */
const PING_TIMEOUT_MS = 3_000;

/** How long start-up waits for the constraints and indexes to come online. */
const AWAIT_INDEXES_SECONDS = 300;

/** Attempts of a call that touched a vertex a concurrent transaction deleted (see isEntityNotFound). */
const ATTEMPTS = 3;

/**
 * The retry schedule of the driver's managed transactions (neo4j-driver-core, TransactionExecutor), which read and
 * write no longer use: each costs a round trip more than the calls here (executeRead and executeWrite wait for
 * BEGIN's reply before the first statement goes out). The first retry after about a second, each next one after
 * twice as long, ±20%, while the first failure is less than maxTransactionRetryTime old and the call has time left.
 */
const FIRST_RETRY_DELAY_MS = 1_000;
const RETRY_DELAY_MULTIPLIER = 2;
const RETRY_JITTER = 0.2;

/**
 * The transaction config of an attempt of a call that must end by `deadline` (a Date.now() value): Neo4j terminates
 * the transaction once the time left has passed, so that no work goes on after the call answered 503 (bounded). A
 * call without a limit (start-up's own steps) says so with 0, which also overrides a server default
 * (db.transaction.timeout).
 */
const txConfig = (deadline: number) => ({ timeout: Number.isFinite(deadline) ? Math.max(1, Math.ceil(deadline - Date.now())) : 0 });

/**
 * Thrown by an attempt that would start after its call's deadline: the driver retries a transaction that failed
 * transiently with the config it was given, so a retry must not begin once the call has answered.
 */
function notPast(deadline: number): void {
  if (Date.now() >= deadline) throw new DomainError('store_unavailable', 'Neo4j did not answer in time.');
}

/**
 * Asked by a write whose earlier attempt got as far as its commit: `{ result }`, what that attempt answered, when
 * its commit went through; undefined when it did not (the write then runs again as usual). See Transactions.write.
 */
export type IfCommitted<T> = (q: Query, writeId: string) => Promise<{ result: T } | undefined>;

/** What ifCommitted answers for a write that committed and returns nothing. */
export const COMMITTED = { result: undefined };

export interface WriteOptions<T> {
  /** The conflict a uniqueness violation means for this write (node_exists, schema_in_use), or a bulk line's refusal. */
  onConstraintViolation?: () => Error;
  ifCommitted?: IfCommitted<T>;
  /** Its time limit (see bounded); the store's NEO4J_CALL_TIMEOUT_MS unless given. */
  limitMs?: number;
  /** Called as an attempt sends its COMMIT, every statement of it answered. */
  committing?: () => void;
}

/** A write run by Transactions.write: what Neo4jStore hands to the code that builds a write of several steps. */
export type Write = <T>(work: (q: Query, writeId: string) => Promise<T>, options?: WriteOptions<T>) => Promise<T>;

/**
 * Start-up upgrades of data an earlier version wrote: runs `statement` (params afterMillis, limit; answers adopted and
 * lastMillis) one batch a transaction, in the order of the records' time, until a batch is short. Answers how many
 * it adopted (0 once done). A batch that runs again after a lost commit reply finds its records done and takes the
 * next ones.
 */
export async function adoptInBatches(write: Write, statement: StatementName, batch: number): Promise<number> {
  let afterMillis = 0;
  let adopted = 0;
  for (;;) {
    const [row] = await write((q) => q<{ adopted: number; lastMillis: number | null }>(statement, { afterMillis: int(afterMillis), limit: int(batch) }), {
      limitMs: Infinity,
    });
    adopted += row?.adopted ?? 0;
    if (!row || row.adopted < batch || row.lastMillis === null) return adopted;
    afterMillis = row.lastMillis;
  }
}

/** What runs a statement: an explicit transaction or a session (auto-commit). */
type Runner = Pick<Transaction, 'run'> | Pick<Session, 'run'>;

/** A record as the row type its statement's caller names: the one place rows take their type (each statement file says its columns). */
const rowOf = <T>(record: { toObject(): unknown }): T => record.toObject() as T;

/** The store's maxTransactionRetryTime unless given (see retrying). */
export const DEFAULT_MAX_RETRY_TIME_MS = 10_000;

/** When read and write run a failed call again (see retrying); tests shorten it. */
export interface RetrySchedule {
  /** The driver's maxTransactionRetryTime: how long after a first failure a call still retries. */
  maxTimeMs: number;
  firstDelayMs: number;
}

/** A write transaction held open by Transactions.hold. */
export interface HeldTransaction {
  /** The write id of what it writes (a lock it takes by writing `exportedBy`, say). */
  writeId: string;
  q: Query;
  /** A statement's rows, as the caller takes them. */
  rows<T = Row>(name: StatementName, params?: Record<string, unknown>): AsyncGenerator<T, void, undefined>;
  /** Rolls back and closes its session; again: nothing. */
  end(): Promise<void>;
}

export class Transactions {
  private closed = false;
  /** What ends each call under way (bounded) when the store closes. */
  private readonly underWay = new Set<() => void>();

  constructor(
    private readonly driver: Driver,
    private readonly database: string,
    private readonly statements: Statements,
    private readonly callTimeoutMs = DEFAULT_CALL_TIMEOUT_MS,
    private readonly retry: RetrySchedule = { maxTimeMs: DEFAULT_MAX_RETRY_TIME_MS, firstDelayMs: FIRST_RETRY_DELAY_MS },
  ) {}

  private session(accessMode: 'READ' | 'WRITE'): Session {
    if (this.closed) throw closedStore();
    return this.driver.session({
      database: this.database,
      defaultAccessMode: accessMode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE,
      // One bookmark manager for all sessions: a read sees every write this process committed before, also when
      // a cluster routes it to another member.
      bookmarkManager: this.driver.executeQueryBookmarkManager,
    });
  }

  private async runStatement<T>(tx: Runner, statement: Statement, params: Record<string, unknown>): Promise<T[]> {
    checkParams(statement, params);
    const result = await tx.run(statement.sent, params);
    return result.records.map((record) => rowOf<T>(record));
  }

  private query(tx: Runner): Query {
    return <T = Row>(name: StatementName, params: Record<string, unknown> = {}) => this.runStatement<T>(tx, this.statements.byName[name], params);
  }

  /**
   * `attempt` until it succeeds, or fails in a way running it again cannot mend. A call that ran into a vertex a
   * concurrent transaction deleted runs again at once (ATTEMPTS in all); what the driver would retry (a deadlock,
   * a leader switch, a connection lost) on its schedule (FIRST_RETRY_DELAY_MS), while there is time and the store is
   * open, but for a refusal of memory (isOutOfMemory says why). A call under way when the store closes (the driver
   * then fails its statements as a lost connection) ends at once, rather than at its deadline.
   */
  private async retrying<T>(attempt: () => Promise<T>, deadline: number): Promise<T> {
    let firstFailureAt: number | undefined;
    let delay = this.retry.firstDelayMs;
    for (let notFound = 1; ;) {
      try {
        return await attempt();
      } catch (e) {
        if (isEntityNotFound(e) && notFound < ATTEMPTS) {
          notFound += 1;
          continue;
        }
        if (!neo4j.isRetryableError(e) || isOutOfMemory(e) || this.closed) throw e;
        firstFailureAt ??= Date.now();
        const wait = delay * (1 + RETRY_JITTER * (2 * Math.random() - 1));
        if (Date.now() - firstFailureAt >= this.retry.maxTimeMs || Date.now() + wait >= deadline) throw e;
        await sleep(wait);
        delay *= RETRY_DELAY_MULTIPLIER;
      }
    }
  }

  /**
   * `call` on `session`, closed after it. A call with no answer after `limitMs` (Neo4j frozen or too slow, or cut off
   * by the network without the connection closing) is 503 store_unavailable then; its session is closed once the
   * call settles. Each transaction of the call carries the time left as its timeout (txConfig), so Neo4j ends the
   * work by then too, and a slow read stops using Neo4j once its caller has its 503. A write answered 503 may still
   * have happened (its commit reply lost), as docs/operations.md says of any. A call under way when the store closes
   * is 503 at once: the driver, closing, may never settle its statement.
   */
  private async bounded<T>(session: Session, call: () => Promise<T>, limitMs: number): Promise<T> {
    const running = call();
    let timer: NodeJS.Timeout | undefined;
    let end: (() => void) | undefined;
    // An infinite limit (start-up's own steps) never comes.
    const late = new Promise<typeof LATE | typeof CLOSED>((resolve) => {
      if (Number.isFinite(limitMs)) timer = setTimeout(resolve, limitMs, LATE);
      end = () => resolve(CLOSED);
      this.underWay.add(end);
    });
    const settled = running.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const outcome = await Promise.race([settled, late]).finally(() => {
      clearTimeout(timer);
      if (end) this.underWay.delete(end);
    });
    if (outcome === LATE || outcome === CLOSED) {
      void settled.then(() => session.close().catch(() => undefined));
      throw outcome === LATE ? new DomainError('store_unavailable', `Neo4j did not answer within ${limitMs / 1000} s.`) : closedStore();
    }
    await session.close().catch(() => undefined);
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /**
   * `work`, within `limitMs` (see bounded), each of its statements an auto-commit query: one round trip, where a
   * read transaction costs three for one statement (BEGIN, the statement, COMMIT). Neo4j reads what is committed
   * when each statement runs, in a transaction or not, so a read of several statements sees what it saw before.
   * A read that ran into a vertex a concurrent transaction deleted between two of its statements is run again,
   * and then sees the deletion.
   */
  async read<T>(work: (q: Query) => Promise<T>, limitMs = this.callTimeoutMs): Promise<T> {
    return this.autoCommitted('READ', work, limitMs);
  }

  /**
   * A write whose every statement is its own transaction (auto-commit): one round trip a statement, where a write
   * transaction of one statement costs two (the statement with BEGIN, then COMMIT) and sends three messages the
   * driver writes one by one. For a write of one statement that makes its own checks and refusals, and that, run
   * again after a lost reply, finds and answers what its committed attempt did by a write id its caller made and
   * keeps across the attempts (see write; impression.count.cypher). Retried and bounded as a read is.
   */
  async writeAlone<T>(work: (q: Query) => Promise<T>, limitMs = this.callTimeoutMs): Promise<T> {
    return this.autoCommitted('WRITE', work, limitMs);
  }

  private async autoCommitted<T>(accessMode: 'READ' | 'WRITE', work: (q: Query) => Promise<T>, limitMs: number): Promise<T> {
    const deadline = Date.now() + limitMs;
    const session = this.session(accessMode);
    const autoCommit: Runner = {
      run: (text: string, params?: Record<string, unknown>) => {
        notPast(deadline);
        return session.run(text, params, txConfig(deadline));
      },
    };
    try {
      return await this.bounded(session, () => this.retrying(() => work(this.query(autoCommit)), deadline), limitMs);
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
  async write<T>(work: (q: Query, writeId: string) => Promise<T>, options: WriteOptions<T> = {}): Promise<T> {
    const writeId = randomUUID();
    let reachedCommit = false;
    const limitMs = options.limitMs ?? this.callTimeoutMs;
    const deadline = Date.now() + limitMs;
    const session = this.session('WRITE');
    const attempt = async (): Promise<T> => {
      notPast(deadline);
      // BEGIN goes out with the first statement: executeWrite would wait for its reply first.
      const tx = session.beginTransaction(txConfig(deadline));
      try {
        const q = this.query(tx);
        if (reachedCommit && options.ifCommitted) {
          const earlier = await options.ifCommitted(q, writeId);
          if (earlier) {
            await tx.commit();
            return earlier.result;
          }
        }
        const result = await work(q, writeId);
        // A later attempt may follow a commit that went through.
        reachedCommit = true;
        options.committing?.();
        await tx.commit();
        return result;
      } catch (e) {
        if (tx.isOpen()) await tx.rollback().catch(() => undefined);
        throw e;
      }
    };
    const attempts = async (): Promise<T> => {
      try {
        return await this.retrying(attempt, deadline);
      } catch (e) {
        throw toStoreError(e, options.onConstraintViolation);
      }
    };
    return this.bounded(session, attempts, limitMs);
  }

  /**
   * A write transaction held open for a long read (an export: neo4j-snapshot.ts), ended by `end()`, which rolls it back:
   * whatever it wrote (a lock it took by writing) is undone. `rows` streams a statement's records as the caller
   * takes them, the driver fetching more as it does. Not retried: a failure ends the read. Neo4j terminates the
   * transaction after `limitMs`.
   */
  async hold(limitMs: number): Promise<HeldTransaction> {
    const deadline = Date.now() + limitMs;
    const session = this.session('WRITE');
    const tx = session.beginTransaction(txConfig(deadline));
    let ended = false;
    const end = async () => {
      if (ended) return;
      ended = true;
      if (tx.isOpen()) await tx.rollback().catch(() => undefined);
      await session.close().catch(() => undefined);
    };
    const statements = this.statements;
    return {
      writeId: randomUUID(),
      q: this.query(tx),
      rows: async function* <T = Row>(name: StatementName, params: Record<string, unknown> = {}): AsyncGenerator<T, void, undefined> {
        const statement = statements.byName[name];
        checkParams(statement, params);
        try {
          for await (const record of tx.run(statement.sent, params)) yield rowOf<T>(record);
        } catch (e) {
          throw toStoreError(e);
        }
      },
      end,
    };
  }

  /**
   * Runs cypher/schema/ (each statement IF NOT EXISTS, or IF EXISTS for what an earlier version made), then, with
   * `awaitIndexes`, waits until every index is online. At start-up, and when a check finds one missing.
   */
  async applySchema(options = { awaitIndexes: true }): Promise<void> {
    for (const statement of this.statements.schema) {
      for (let attempt = 1; ; attempt += 1) {
        // One statement per transaction (here auto-commit): Neo4j does not mix schema commands with anything else in
        // a transaction.
        const session = this.session('WRITE');
        try {
          await this.retrying(() => this.runStatement(session, statement, {}), Infinity);
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

  /**
   * Runs a start-up statement that commits in batches of its own (CALL { } IN TRANSACTIONS), which Neo4j allows only
   * in an auto-commit query: no time limit, retried as a write is. Its batches that committed stay when a later one
   * fails; the statements run so are idempotent, and the next start goes on where this one stopped.
   */
  async autoCommit<T = Row>(name: StatementName, params: Record<string, unknown>): Promise<T[]> {
    const session = this.session('WRITE');
    const statement = this.statements.byName[name];
    const autoCommit: Runner = { run: (text: string, sent?: Record<string, unknown>) => session.run(text, sent, txConfig(Infinity)) };
    try {
      return await this.retrying(() => this.runStatement<T>(autoCommit, statement, params), Infinity);
    } catch (e) {
      throw toStoreError(e);
    } finally {
      await session.close().catch(() => undefined);
    }
  }

  /** The constraints and indexes of cypher/schema/ that Neo4j does not have (none, normally). */
  async missingSchema(): Promise<SchemaObject[]> {
    const expected = schemaObjects(this.statements.schema);
    const { present } = await this.schemaState(expected.map((o) => o.name));
    return expected.filter((o) => !present.has(o.name));
  }

  /**
   * Whether applying cypher/schema/ would change nothing and wait for nothing: every constraint and index it creates
   * is there and online, and nothing it drops is left. One round trip, where applying it takes one per statement.
   */
  async schemaInPlace(): Promise<boolean> {
    const dropped = droppedSchemaNames(this.statements.schema);
    if (dropped === undefined) return false;
    const expected = schemaObjects(this.statements.schema).map((o) => o.name);
    const { present, online } = await this.schemaState([...expected, ...dropped]);
    return expected.every((name) => online.has(name)) && !dropped.some((name) => present.has(name));
  }

  /** Which of these constraints and indexes Neo4j has (a constraint's own index carries its name), and which are online. */
  private async schemaState(names: string[]): Promise<{ present: Set<string>; online: Set<string> }> {
    const [row] = await this.read((q) => q<{ present: string[]; online?: string[] }>('store.schema-in-place', { names }));
    return { present: new Set(row?.present ?? []), online: new Set(row?.online ?? []) };
  }

  async ping(): Promise<void> {
    // An auto-commit query rather than executeRead: executeRead would retry an unreachable server for
    // maxTransactionRetryTime, and /readyz should answer at once. A server that stopped answering without closing
    // the connection (frozen, or cut off by the network) would keep the query waiting: PING_TIMEOUT_MS bounds it.
    const session = this.session('READ');
    try {
      const ping = this.statements.byName['store.ping'].sent;
      await this.bounded(session, async () => void (await session.run(ping, {}, txConfig(Date.now() + PING_TIMEOUT_MS))), PING_TIMEOUT_MS);
    } catch {
      throw storeUnavailable();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const end of [...this.underWay]) end();
    await this.driver.close();
  }
}
