// Concurrent single node writes of the Neo4j store, gathered into shared transactions the way a bulk request's
// lines are (./neo4j-bulk.ts), so that the fixed cost of a transaction and of each statement is paid once for many.
import { DomainError } from '../../domain/errors';
import type { MarkedWrite } from './kept-policies';
import { Batcher, type Turn } from './batcher';
import { applyInBatches, type RunBatch } from './neo4j-bulk';

/** How many single node write transactions run at once (committing ones included); writes that arrive meanwhile wait, and go together. */
export const NODE_WRITE_TRANSACTIONS_AT_ONCE = 2;

/** Most writes one gathered transaction carries: its locks are held until it commits, so the writes behind it wait that long. */
export const NODE_WRITES_PER_TRANSACTION = 32;

/** A write and when it arrived (Date.now()): its time limit runs from then, the wait included. */
interface Arrived<W> {
  write: W;
  since: number;
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
 * (docs/decisions/0004-gather-concurrent-node-writes.md); customers' transactions run side by side.
 */
export class NodeWriteGathering<W extends { node: Pick<MarkedWrite['node'], 'customerId'> } = MarkedWrite> {
  private readonly batcher: Batcher<Arrived<W>, void>;

  constructor(
    private readonly alone: (write: W, committing: () => void) => Promise<void>,
    private readonly together: RunTogether<W>,
    private readonly options: GatheringOptions,
  ) {
    this.batcher = new Batcher<Arrived<W>, void>({
      alone: ({ write }, turn) => this.alone(write, turn.release),
      together: (lines, turn) => this.applyTogether(lines, turn),
      partition: ({ write }) => write.node.customerId,
      onePerPartition: true,
      slots: options.atOnce ?? NODE_WRITE_TRANSACTIONS_AT_ONCE,
      perBatch: options.perTransaction ?? NODE_WRITES_PER_TRANSACTION,
      limitMs: options.limitMs,
    });
  }

  apply(write: W): Promise<void> {
    return this.batcher.ask({ write, since: Date.now() });
  }

  /**
   * The lines as one bulk batch (applyInBatches), each answered as soon as its transaction committed or refused it.
   * A transaction after a refusal has the time its own longest-waiting line has left.
   */
  private async applyTogether(lines: Array<Arrived<W>>, turn: Turn<void>): Promise<Array<PromiseSettledResult<void>>> {
    const limitMs = this.options.limitMs;
    const indexed = lines.map((line, index) => ({ ...line, index }));
    const run: RunBatch<(typeof indexed)[number]> = async (batch) => {
      const left = limitMs - (Date.now() - Math.min(...batch.map((line) => line.since)));
      if (left <= 0) throw new DomainError('store_unavailable', `Neo4j did not answer within ${limitMs / 1000} s.`);
      const outcome = await this.together(
        batch.map((line) => line.write),
        left,
        turn.release,
      );
      if (outcome === undefined) for (const line of batch) turn.answer(line.index, { status: 'fulfilled', value: undefined });
      else if (outcome !== 'unattributed' && outcome.at === 0 && batch[0]) turn.answer(batch[0].index, { status: 'rejected', reason: outcome.error });
      return outcome;
    };
    await applyInBatches(indexed, indexed.length, run);
    return lines.map(() => ({ status: 'fulfilled', value: undefined }));
  }
}
