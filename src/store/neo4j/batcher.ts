// How the Neo4j store lets concurrent calls share a statement or a transaction: its fixed cost (a round trip, the
// driver's and Neo4j's work for every statement, a commit) is then paid once for several. One queue, used by the
// shared reads (./gathered-reads.ts), the searches (./neo4j-search.ts), the impressions (./gathered-impressions.ts)
// and the single node writes (./write-gathering.ts).
import { DomainError } from '../../domain/errors';

/** What a statement (or transaction) started for asks is given. */
export interface Turn<R> {
  /** What is left of the time limit of its longest-waiting ask (the whole limit for an ask that went at once). */
  limitMs: number;
  /**
   * Frees its partition for the next batch before this one ends (a transaction sending its COMMIT), for a batcher
   * whose partitions run one at a time; calling it again changes nothing.
   */
  release: () => void;
  /** Answers ask `index` of a batch before the batch ends (the others still wait); answering twice changes nothing. */
  answer: (index: number, result: PromiseSettledResult<R>) => void;
}

export interface BatcherOptions<A, R> {
  /**
   * An ask that goes at once, alone (a slot of its lane free, nothing of its partition waiting), with the statement
   * it would make without batching. Without it, such an ask goes as a batch of one.
   */
  alone?: (ask: A, turn: Turn<R>) => Promise<R>;
  /** Asks that waited, in arrival order, in one statement: an answer per ask, in their order. */
  together: (asks: A[], turn: Turn<R>) => Promise<Array<PromiseSettledResult<R>>>;
  /** Asks share a batch only within one partition (the same bounds, statement or customer); one partition if not given. */
  partition?: (ask: A) => string;
  /** Asks of the same key (in one partition) take one place in a batch and get its one answer. */
  key?: (ask: A) => string;
  /** A batch holds at most one ask of each of these values; the others wait for the next (a delivery locked once). */
  distinct?: (ask: A) => string;
  /** Slots share a lane (one if not given); every ask of a partition must be of the same lane. */
  lane?: (ask: A) => string;
  /**
   * How many statements of a lane run at once before new asks wait to go together; `active` says whether a lane has
   * a statement running or an ask waiting.
   */
  slots: number | ((lane: string, active: (lane: string) => boolean) => number);
  /** Most asks one batch carries. */
  perBatch: number;
  /** A partition runs one batch at a time (until its turn's release): one customer's history is appended in order. */
  onePerPartition?: boolean;
  /** Time limit of an ask from its arrival, its wait included: one that waited past it is refused unrun. */
  limitMs?: number;
}

interface Waiting<A, R> {
  ask: A;
  /** Arrival order, across partitions: the partition whose first ask came first has the next turn. */
  order: number;
  /** When it arrived (Date.now()). */
  since: number;
  settle: Array<{ resolve: (answer: R) => void; reject: (error: unknown) => void }>;
}

interface Partition<A, R> {
  lane: string;
  /** In arrival order. */
  waiting: Array<Waiting<A, R>>;
  /** The waiting asks by key, when asks have one. */
  byKey: Map<string, Waiting<A, R>>;
}

/**
 * Batching only under contention. An ask that finds a free slot in its lane (and its partition with nothing waiting,
 * and not busy when partitions run one at a time) goes at once, alone: none waits for others to come. Asks that
 * arrive while the lane's slots are taken wait; when a statement ends (or releases its partition), the partition
 * whose first waiting ask came first starts a batch of its waiting asks, in arrival order, up to `perBatch`, while its
 * lane has a slot free. Every answer is read by a statement that starts after its ask arrived, so it is as current as
 * an ask of its own: nothing is kept between batches. An error that fails a batch fails each of its asks not yet
 * answered.
 */
export class Batcher<A, R> {
  private readonly running = new Map<string, number>();
  /** Partitions with a batch that has not released them (onePerPartition). */
  private readonly busy = new Set<string>();
  /** Partitions with asks waiting. */
  private readonly partitions = new Map<string, Partition<A, R>>();
  private arrivals = 0;

  constructor(private readonly options: BatcherOptions<A, R>) {}

  /** The answer of `ask`, from a statement of its own or one shared with the asks waiting with it. */
  ask(ask: A): Promise<R> {
    const name = this.options.partition?.(ask) ?? '';
    const lane = this.options.lane?.(ask) ?? '';
    const partition = this.partitions.get(name);
    if (partition === undefined && this.free(lane) && !this.busy.has(name)) return this.alone(name, lane, ask);
    return new Promise((resolve, reject) => {
      const waiting: Partition<A, R> = partition ?? { lane, waiting: [], byKey: new Map() };
      this.partitions.set(name, waiting);
      const key = this.options.key?.(ask);
      const same = key === undefined ? undefined : waiting.byKey.get(key);
      if (same) {
        same.settle.push({ resolve, reject });
        return;
      }
      const entry: Waiting<A, R> = { ask, order: this.arrivals++, since: Date.now(), settle: [{ resolve, reject }] };
      waiting.waiting.push(entry);
      if (key !== undefined) waiting.byKey.set(key, entry);
    });
  }

  private alone(partition: string, lane: string, ask: A): Promise<R> {
    const turn = this.start(partition, lane, this.options.limitMs ?? Infinity, () => undefined);
    const { alone, together } = this.options;
    const answer = alone
      ? settled(() => alone(ask, turn))
      : settled(() => together([ask], turn)).then(([result]) => {
          if (result === undefined) throw new Error('The batch answered nothing for this ask.');
          if (result.status === 'rejected') throw result.reason;
          return result.value;
        });
    return answer.finally(() => this.done(partition, lane, turn));
  }

  /** Counts a statement of `lane` as running, and its partition busy (onePerPartition) until it releases it. */
  private start(partition: string, lane: string, limitMs: number, answer: Turn<R>['answer']): Turn<R> & { releaseOnce: () => void } {
    this.running.set(lane, (this.running.get(lane) ?? 0) + 1);
    if (this.options.onePerPartition) this.busy.add(partition);
    let held = this.options.onePerPartition === true;
    const releaseOnce = () => {
      if (!held) return false;
      held = false;
      this.busy.delete(partition);
      return true;
    };
    return {
      limitMs,
      answer,
      releaseOnce: () => void releaseOnce(),
      release: () => {
        if (releaseOnce()) this.next();
      },
    };
  }

  private done(partition: string, lane: string, turn: { releaseOnce: () => void }): void {
    this.running.set(lane, (this.running.get(lane) ?? 1) - 1);
    turn.releaseOnce();
    this.next();
  }

  private slots(lane: string): number {
    const { slots } = this.options;
    if (typeof slots === 'number') return slots;
    return slots(lane, (other) => (this.running.get(other) ?? 0) > 0 || [...this.partitions.values()].some((p) => p.lane === other));
  }

  private free(lane: string): boolean {
    return (this.running.get(lane) ?? 0) < this.slots(lane);
  }

  /** Starts batches, the partition whose first ask came first before the others, while their lanes have a slot free. */
  private next(): void {
    for (;;) {
      let turn: [string, Partition<A, R>] | undefined;
      for (const [name, partition] of this.partitions) {
        if (this.busy.has(name) || !this.free(partition.lane)) continue;
        if (turn === undefined || (partition.waiting[0]?.order ?? Infinity) < (turn[1].waiting[0]?.order ?? Infinity)) turn = [name, partition];
      }
      if (turn === undefined) return;
      const [name, partition] = turn;
      const batch = this.take(partition);
      if (partition.waiting.length === 0) this.partitions.delete(name);
      this.run(name, partition.lane, batch);
    }
  }

  /** The partition's first waiting asks, in arrival order, up to perBatch, one of each distinct value. */
  private take(partition: Partition<A, R>): Array<Waiting<A, R>> {
    const { distinct, key, perBatch } = this.options;
    const taken = new Set<string>();
    const batch: Array<Waiting<A, R>> = [];
    const left: Array<Waiting<A, R>> = [];
    for (const waiting of partition.waiting) {
      const value = distinct?.(waiting.ask);
      if (batch.length < perBatch && (value === undefined || !taken.has(value))) {
        if (value !== undefined) taken.add(value);
        batch.push(waiting);
        if (key) partition.byKey.delete(key(waiting.ask));
      } else {
        left.push(waiting);
      }
    }
    partition.waiting = left;
    return batch;
  }

  private run(partition: string, lane: string, batch: Array<Waiting<A, R>>): void {
    const limitMs = this.options.limitMs ?? Infinity;
    const left = limitMs - (Date.now() - Math.min(...batch.map((w) => w.since)));
    if (left <= 0) {
      const late = new DomainError('store_unavailable', `Neo4j did not answer within ${limitMs / 1000} s.`);
      for (const waiting of batch) waiting.settle.forEach((s) => s.reject(late));
      return;
    }
    const answered = new Set<number>();
    const answer = (index: number, result: PromiseSettledResult<R>) => {
      const waiting = batch[index];
      if (waiting === undefined || answered.has(index)) return;
      answered.add(index);
      if (result.status === 'fulfilled') waiting.settle.forEach((s) => s.resolve(result.value));
      else waiting.settle.forEach((s) => s.reject(result.reason));
    };
    const turn = this.start(partition, lane, left, answer);
    // The slot is free before the callers hear, as for an ask alone: what they ask next may go at once.
    void settled(() =>
      this.options.together(
        batch.map((w) => w.ask),
        turn,
      ),
    ).then(
      (results) => {
        this.done(partition, lane, turn);
        batch.forEach((_, index) => answer(index, results[index] ?? { status: 'rejected', reason: new Error('The batch answered nothing for this ask.') }));
      },
      (error: unknown) => {
        this.done(partition, lane, turn);
        batch.forEach((_, index) => answer(index, { status: 'rejected', reason: error }));
      },
    );
  }
}

/** What `call` answers, also when it throws before returning a promise: a slot it was counted in is then freed too. */
function settled<T>(call: () => Promise<T>): Promise<T> {
  try {
    return call();
  } catch (e) {
    return Promise.reject(e);
  }
}
