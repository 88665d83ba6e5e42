// Imports on Neo4j (docs/changes-and-export.md): an export's records written straight into the graph, a batch per
// write transaction, for a customer no other request writes to meanwhile. An (:Import {customer}) vertex marks the
// customer from beginImport until the import finishes, or is undone (import.abandon-*.cypher): then everything of the
// customer but its settings, blocklist, tokens and id counters is deleted, in batches, and the mark last.
//
// Two batches are written at once (IMPORT_BATCHES_AT_ONCE), each on a lane of its own: its transaction locks its
// lane, and no vertex that every batch writes. The import numbers its history entries itself, from the change
// counter's value when it began, and moves the counter past them when it finishes (import.history.cypher). A batch
// is one round trip for all its records, sent at once and run in order: the lane's touch, the nodes (import.nodes),
// the bans, the ids given, the deliveries, the impression counts and the history; then the commit. A batch with
// schemas first checks the mark, then puts each schema the way putSchema does (a few statements, one after the
// other: schemas are few, and come in the first batch).
import { compareCodePoints } from '../../domain/code-point-order';
import { DomainError } from '../../domain/errors';
import type { BlockRule } from '../../domain/blocklist';
import type { CustomerSettings, IdPair } from '../../domain/model';
import type { ImportBatch, ImportRefusal } from '../../domain/ports/imports';
import type { DeliveryIdsGiven, SnapshotNode } from '../../domain/ports/snapshots';
import type { Neo4jDeliveries } from './neo4j-deliveries';
import { importInProgress, stored } from './neo4j-history';
import type { Neo4jSchemas } from './neo4j-schemas';
import { COMMITTED, type IfCommitted, type Transactions, type Write } from './neo4j-transactions';
import { int, type Query, together } from './query';

/** Thrown inside a batch's transaction to undo it, and answered as the refusal it carries. */
class RefusedBatch extends Error {
  constructor(readonly refusal: ImportRefusal) {
    super('an import batch names what the import did not write');
  }
}

const notImporting = () => new DomainError('import_in_progress', 'No import of this customer is under way.');

/**
 * The last statement of a customer's write that appends no history (customer.importing.cypher): import_in_progress,
 * for the caller to roll the write back, when another process has begun importing the customer.
 */
export async function refuseIfImporting(q: Query, customer: string): Promise<void> {
  const [row] = await q<{ importing: boolean }>('customer.importing', { customer });
  if (row?.importing) throw importInProgress();
}

/** The counters an export's delivery ids name (import.sequences.cypher). */
const GIVEN: ReadonlyArray<keyof DeliveryIdsGiven> = ['delivery', 'condition', 'message'];

/** What abandon deletes in batches, in this order: nodes first, which leaves their IDs held by nothing. */
const ABANDON_STEPS = ['import.abandon-nodes', 'import.abandon-ids', 'import.abandon-history', 'import.abandon-impressions'] as const;

const keyOf = (schema: string, key: IdPair) => ({ schema, keyType: key.type, keyId: key.id });

/**
 * A batch's nodes, and the IDs they hold in code-point order of type, then value, each naming its node by index
 * (import.nodes.cypher): the order every batch locks IDs in, so two batches never deadlock.
 */
function nodesAndLinks(batchNodes: readonly SnapshotNode[]) {
  const nodes = batchNodes.map((n) => keyOf(n.schemaId, n.key));
  const links = batchNodes
    .flatMap((n, node) => [n.key, ...n.ids].map((held) => ({ node, type: held.type, id: held.id })))
    .sort((a, b) => compareCodePoints(a.type, b.type) || compareCodePoints(a.id, b.id))
    .map((link) => ({ ...link, node: int(link.node) }));
  return { nodes, links };
}

export interface ImportParts {
  write: Write;
  read: Transactions['read'];
  /** Transactions.writeAlone: one auto-commit statement. */
  writeAlone: Transactions['writeAlone'];
  /** Transactions.autoCommit: a statement that commits in batches of its own. */
  autoCommit: Transactions['autoCommit'];
  schemas: Neo4jSchemas;
  deliveries: Neo4jDeliveries;
}

/**
 * The records an import batch carries at most, IDs and history entries counted one each (importBatching of the
 * port). Neo4j holds a transaction's changes in memory until its commit, and then writes them to the store and its
 * indexes: per record, transactions of a few thousand records were faster than ones of 20,000
 * (bench/results/moves/README.md).
 */
export const IMPORT_BATCH_WEIGHT = 2_500;

/**
 * How many batches an import writes at once (importBatching of the port), each in a transaction of its own: the
 * server runs a transaction's statements and its commit on one thread, and a second batch keeps a second core busy
 * (bench/results/moves/README.md).
 */
export const IMPORT_BATCHES_AT_ONCE = 2;

/** An import this process runs: the feed position its next entry takes, and its lanes no batch is writing on. */
interface Running {
  next: number;
  freeLanes: number[];
}

/** How long one import batch may take, its commit included. */
const BATCH_LIMIT_MS = 300_000;

/**
 * How long an import may go without its process saying it is alive before another process takes it for one a
 * stopped process left (NEO4J_IMPORT_STALE_MS, import.unfinished.cypher). Its process says so every twelfth of it
 * (import.alive.cypher), from begin to finish or abandon, batches or not.
 */
export const DEFAULT_IMPORT_STALE_MS = 60_000;

export class Neo4jImport {
  /** The imports this process runs, by customer: what stops saying they are alive. */
  private readonly alive = new Map<string, () => void>();
  /** The imports this process runs, by customer. */
  private readonly running = new Map<string, Running>();
  /** How often an import this process runs says it is alive. */
  aliveEveryMs = DEFAULT_IMPORT_STALE_MS / 12;

  constructor(private readonly parts: ImportParts) {}

  /**
   * Says the customer's import is alive every aliveEveryMs, one statement at a time, until its entry in `alive` is
   * called. Its lease (ImportLease) is a vertex of its own, which no batch locks: a batch that takes
   * minutes does not hold it back.
   */
  private keepAlive(customer: string): void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const beat = () => {
      timer = setTimeout(() => {
        // A beat that fails is tried again at the next: only beats missed for a long while let another process
        // take the import for one a stopped process left.
        void this.parts
          .writeAlone((q) => q('import.alive', { customer }))
          .catch(() => undefined)
          .finally(() => {
            if (!stopped) beat();
          });
      }, this.aliveEveryMs);
      timer.unref();
    };
    beat();
    this.alive.get(customer)?.();
    this.alive.set(customer, () => {
      stopped = true;
      clearTimeout(timer);
      this.alive.delete(customer);
    });
  }

  /** One statement (import.begin.cypher), which a retry after a lost commit reply answers as its first attempt did. */
  async begin(customerId: string): Promise<void> {
    const last = await this.parts.write(
      async (q, writeId) => {
        const [row] = await q<{ begun: boolean; holding: boolean; last: number }>('import.begin', {
          customer: customerId,
          write: writeId,
          lanes: int(IMPORT_BATCHES_AT_ONCE),
        });
        if (!row?.begun) throw importInProgress();
        // Thrown: the transaction, and the mark it made, is rolled back.
        if (row.holding) {
          throw new DomainError(
            'customer_not_empty',
            'The customer holds schemas, nodes, separations, deliveries or history: an import needs an empty customer.',
          );
        }
        return row.last;
      },
      { onConstraintViolation: importInProgress },
    );
    const lanes = Array.from({ length: IMPORT_BATCHES_AT_ONCE }, (_, lane) => lane);
    this.running.set(customerId, { next: last + 1, freeLanes: lanes });
    this.keepAlive(customerId);
  }

  /**
   * The batch in one write transaction, on a lane no other batch is writing on; a refusal rolls it back. Its history
   * entries take the feed positions after those of the batches called before it, whichever commits first.
   */
  async batch(customerId: string, batch: ImportBatch): Promise<ImportRefusal | undefined> {
    const customer = customerId;
    const { nodes, links } = nodesAndLinks(batch.nodes);
    const bans = batch.separations.map((ban, index) => ({
      index: int(index),
      a: keyOf(ban.a.schemaId, ban.a.key),
      b: keyOf(ban.b.schemaId, ban.b.key),
    }));
    const { deliveryIds } = batch;
    const given = deliveryIds ? GIVEN.map((name) => ({ name, last: int(deliveryIds[name]) })) : [];
    const counts = batch.impressions.flatMap((t) =>
      t.days.map(({ day, count }) => ({ deliveryId: int(t.deliveryId), type: t.id.type, value: t.id.id, day, count: int(count) })),
    );
    const entries = batch.history.flatMap((key) =>
      key.entries.map((e) => {
        const { position: _position, redacts: _redacts, ...entry } = stored(e, 0);
        return { ...entry, atMillis: int(Date.parse(e.at)) };
      }),
    );
    // Taken before the first await: in the order the batches are handed over.
    const running = this.running.get(customer);
    const lane = running?.freeLanes.shift();
    // The domain writes no more batches at once than importBatching says, and only after beginImport.
    if (running === undefined || lane === undefined) throw notImporting();
    const first = int(running.next);
    running.next += entries.length;
    const ifCommitted: IfCommitted<undefined> = async (q, writeId) => {
      const [row] = await q<{ lastWrite: string | null }>('import.mark', { customer, lane: int(lane) });
      return row?.lastWrite === writeId ? COMMITTED : undefined;
    };
    const work = async (q: Query, write: string) => {
      const touching = q<{ marked: boolean }>('import.touch', { customer, lane: int(lane), write });
      const refuseUnlessMarked = async () => {
        if ((await touching)[0]?.marked !== true) throw notImporting();
      };
      // Schemas are put only into a marked customer (a put could refuse otherwise): the mark is checked first.
      if (batch.schemas.length > 0) await refuseUnlessMarked();
      for (const schema of batch.schemas) await this.parts.schemas.put(q, customer, schema, write);
      const creating = nodes.length > 0 ? q<{ unschemed: number }>('import.nodes', { customer, nodes, links, write }) : undefined;
      const banning = bans.length > 0 ? q<{ refused: number | null }>('import.separations', { customer, bans }) : undefined;
      await together(
        touching,
        creating,
        banning,
        given.length > 0 ? q('import.sequences', { customer, given }) : undefined,
        this.parts.deliveries.imported(q, customer, batch.deliveries, write),
        counts.length > 0 ? q('import.impressions', { customer, counts }) : undefined,
        entries.length > 0 ? q('import.history', { customer, entries, first, write }) : undefined,
      );
      await refuseUnlessMarked();
      // The domain checked each node against its schema: one without is a bug.
      const unschemed = (await creating)?.[0]?.unschemed ?? 0;
      if (unschemed > 0) throw new Error(`${unschemed} nodes of an import batch found no schema.`);
      const refused = (await banning)?.[0]?.refused;
      if (refused !== undefined && refused !== null) throw new RefusedBatch({ separation: refused });
    };
    try {
      // A batch writes up to tens of thousands of IDs in one transaction, which no other writer waits for: it has longer
      // than a request's NEO4J_CALL_TIMEOUT_MS.
      await this.parts.write(work, { ifCommitted, limitMs: BATCH_LIMIT_MS });
      return undefined;
    } catch (e) {
      if (e instanceof RefusedBatch) return e.refusal;
      throw e;
    } finally {
      running.freeLanes.push(lane);
    }
  }

  /**
   * One round trip of five statements, then the commit: after every batch, so on the first lane. The change counter
   * moves past the import's entries in the same transaction, and the feed shows them all at once.
   */
  async finish(customerId: string, settings: CustomerSettings, blockRules: BlockRule[]): Promise<void> {
    const customer = customerId;
    const running = this.running.get(customer);
    if (running === undefined) throw notImporting();
    const lane = int(0);
    await this.parts.write(
      async (q, write) => {
        const touching = q<{ marked: boolean }>('import.touch', { customer, lane, write });
        await together(
          touching,
          this.parts.schemas.putSettings(q, customer, settings),
          this.parts.schemas.putBlocklist(q, customer, blockRules),
          q('import.feed-head', { customer, last: int(running.next - 1) }),
          q('import.unmark', { customer }),
        );
        if ((await touching)[0]?.marked !== true) throw notImporting();
      },
      // The mark gone after an attempt that reached its commit: that commit went through.
      { ifCommitted: async (q) => ((await q('import.mark', { customer, lane })).length === 0 ? COMMITTED : undefined) },
    );
    this.running.delete(customerId);
    this.alive.get(customerId)?.();
  }

  /**
   * Everything the import wrote: nodes, IDs, history and impression counts each deleted in transactions of a few
   * thousand (an auto-commit statement each: import.abandon-*.cypher), then its few deliveries and schemas in one
   * transaction with the mark: an abandon that stops part-way leaves the customer marked, and is done again. The
   * change counter stays where it was: no position past it was ever shown. It first marks the import abandoned
   * (import.abandoning.cypher), which waits for the batches under way to commit, and refuses every batch and finish
   * after it: nothing is written behind the deleting. A customer not marked (its import finished after all, say a
   * finish whose answer came too late) is left as it is.
   */
  async abandon(customerId: string): Promise<void> {
    const customer = customerId;
    this.alive.get(customerId)?.();
    this.running.delete(customerId);
    const [abandoning] = await this.parts.writeAlone((q) => q<{ marked: boolean }>('import.abandoning', { customer }));
    if (abandoning?.marked !== true) return;
    for (const step of ABANDON_STEPS) await this.parts.autoCommit(step, { customer });
    await this.parts.write((q) => together(q('import.abandon-rest', { customer }), q('import.unmark', { customer })));
  }

  /** Stops saying that this process's imports are alive: the store is closing. */
  close(): void {
    for (const stop of [...this.alive.values()]) stop();
  }

  /** In code-point order of the customer id. */
  async unfinished(idleMs: number): Promise<string[]> {
    const rows = await this.parts.read((q) => q<{ customer: string }>('import.unfinished', { idleMs: int(idleMs) }));
    return rows.map((row) => row.customer).sort(compareCodePoints);
  }
}
