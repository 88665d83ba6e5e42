// Concurrent single node writes of the Neo4j store, gathered into shared transactions the way a bulk request's
// lines are (./neo4j-bulk.ts), so that the fixed cost of a transaction and of each statement is paid once for many.
import { DomainError } from '../../domain/errors';
import type { NodeWrite } from '../../domain/ports/node-writes';
import { applyInBatches, type RunBatch } from './neo4j-bulk';

/** How many single node write transactions run at once (committing ones included); writes that arrive meanwhile wait, and go together. */
export const NODE_WRITE_TRANSACTIONS_AT_ONCE = 2;

/** Most writes one gathered transaction carries: its locks are held until it commits, so the writes behind it wait that long. */
export const NODE_WRITES_PER_TRANSACTION = 32;

/** A write waiting for a transaction, and how its caller hears what became of it. */
interface Waiting<W> {
  write: W;
  /** When it arrived (Date.now()): its time limit runs from then, the wait included. */
  since: number;
  settle: (error?: unknown) => void;
}

/** RunBatch, within `limitMs`; `committing` is called as each of its transactions sends its COMMIT. */
export type RunTogether<W> = (lines: W[], limitMs: number, committing: () => void) => ReturnType<RunBatch<W>>;

export interface GatheringOptions {
  /** The store's time limit of a call (NEO4J_CALL_TIMEOUT_MS). */
  limitMs: number;
  atOnce?: number;
  perTransaction?: number;
}

/**
 * Store.createNode, insertIds, replaceId, removeId and deleteNode on Neo4j. A write whose customer is not busy (has
 * no transaction running that has not sent its COMMIT yet), and that finds fewer than `atOnce` of these transactions
 * running, goes at once, alone, in a transaction of its own (`alone`), as it would without this. Any other waits
 * with the other writes of its customer (a transaction appends the history of one customer), and when a transaction
 * sends its COMMIT or ends, the customers not busy take turns: the next has up to `perTransaction` of its writes
 * applied in arrival order as the lines of one bulk batch (`together`, with applyInBatches): a refused write rolls
 * that transaction back, the writes before it run again together, and it then runs first of its own transaction, so
 * each write is atomic, commits or is refused on its own, and its caller gets its own refusal, as the single write
 * would throw it. An error that is no refusal (the store unavailable) fails the writes of that transaction that had
 * not yet committed. A shared transaction has the time its longest-waiting write has left of `limitMs`, so no write
 * answers later than alone.
 *
 * One customer's writes run in one transaction at a time, the next beginning as the one before sends its COMMIT:
 * those that arrive meanwhile make the next one larger, and a write costs less the more it shares
 * (docs/neo4j-performance.md); customers' transactions run side by side.
 */
export class NodeWriteGathering<W extends { node: Pick<NodeWrite['node'], 'customerId'> } = NodeWrite> {
  private running = 0;
  /** The customers with a transaction running that has not sent its (first) COMMIT yet: each has at most one. */
  private readonly busy = new Set<string>();
  /** Per customer, in arrival order; the Map keeps the customers in the order of their turns. */
  private readonly waiting = new Map<string, Array<Waiting<W>>>();

  private readonly limitMs: number;
  private readonly atOnce: number;
  private readonly perTransaction: number;

  constructor(
    private readonly alone: (write: W, committing: () => void) => Promise<void>,
    private readonly together: RunTogether<W>,
    options: GatheringOptions,
  ) {
    this.limitMs = options.limitMs;
    this.atOnce = options.atOnce ?? NODE_WRITE_TRANSACTIONS_AT_ONCE;
    this.perTransaction = options.perTransaction ?? NODE_WRITES_PER_TRANSACTION;
  }

  apply(write: W): Promise<void> {
    const customer = write.node.customerId;
    if (this.running < this.atOnce && !this.busy.has(customer)) {
      const turn = this.start(customer);
      return this.alone(write, turn.committing).finally(turn.done);
    }
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(customer) ?? [];
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the write's own error, passed on as it was
      queue.push({ write, since: Date.now(), settle: (error) => (error === undefined ? resolve() : reject(error)) });
      this.waiting.set(customer, queue);
    });
  }

  /**
   * Counts a transaction of `customer` as running, and its customer as busy until the transaction sends its COMMIT
   * (`committing`: the customer's next one may then begin, its first round trip beside the commit's; for a batch a
   * refusal splits into several, when the first sends it) or ends (`done`), whichever comes first.
   */
  private start(customer: string): { committing: () => void; done: () => void } {
    this.running += 1;
    this.busy.add(customer);
    let busy = true;
    const free = () => {
      if (busy) this.busy.delete(customer);
      busy = false;
    };
    return {
      committing: () => {
        free();
        this.next();
      },
      done: () => {
        this.running -= 1;
        free();
        this.next();
      },
    };
  }

  /** Starts a transaction for the customer whose turn it is among those not busy, while fewer than atOnce run. */
  private next(): void {
    while (this.running < this.atOnce) {
      let customer: string | undefined;
      for (const waiting of this.waiting.keys()) {
        if (this.busy.has(waiting)) continue;
        customer = waiting;
        break;
      }
      if (customer === undefined) return;
      const queue = this.waiting.get(customer) as Array<Waiting<W>>;
      const batch = queue.splice(0, this.perTransaction);
      // The customer's writes left over wait behind the other customers'.
      this.waiting.delete(customer);
      if (queue.length > 0) this.waiting.set(customer, queue);
      const turn = this.start(customer);
      void this.applyTogether(batch, turn.committing).finally(turn.done);
    }
  }

  private async applyTogether(batch: Array<Waiting<W>>, committing: () => void): Promise<void> {
    // Each caller hears as soon as its write committed or was refused (settling twice changes nothing).
    const run: RunBatch<Waiting<W>> = async (lines) => {
      const left = this.limitMs - (Date.now() - Math.min(...lines.map((line) => line.since)));
      if (left <= 0) throw new DomainError('store_unavailable', `Neo4j did not answer within ${this.limitMs / 1000} s.`);
      const outcome = await this.together(
        lines.map((line) => line.write),
        left,
        committing,
      );
      if (outcome === undefined) for (const line of lines) line.settle();
      else if (outcome !== 'unattributed' && outcome.at === 0) lines[0]?.settle(outcome.error);
      return outcome;
    };
    try {
      await applyInBatches(batch, batch.length, run);
    } catch (e) {
      for (const line of batch) line.settle(e);
    }
  }
}
