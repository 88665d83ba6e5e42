// Concurrent reads of one shape sharing one statement: the pattern of SharedSearches (./neo4j-search.ts) for any read
// whose asks a `*-many` statement answers together (a token by its hash, a customer's policy, ...).
import type { Query } from './query';

/** How a read of one shape runs alone, and how a `*-many` statement runs many of them at once. */
export interface ReadShape<A, R> {
  /** Asks with the same key have the same answer: waiting ones share one place in the statement. */
  key: (ask: A) => string;
  /** A lone ask: the statement a call makes when nothing else of its shape is waiting. */
  alone: (q: Query, ask: A) => Promise<R>;
  /** Distinct asks in one statement; the answers in the asks' order. */
  together: (q: Query, asks: A[]) => Promise<R[]>;
  /** How many statements of the shape run at once before new asks wait to go together. */
  atOnce: number;
  /** Most asks one statement carries. */
  perStatement: number;
}

/** Statements of one kind running at once, and the start of what waits whenever one of them settles. */
export abstract class StatementSlots {
  protected running = 0;

  /** Counts `statement` as running until it settles, then starts what waits. */
  protected started<T>(statement: Promise<T>): Promise<T> {
    this.running += 1;
    return statement.finally(() => {
      this.running -= 1;
      this.next();
    });
  }

  /** Starts statements for what waits, while fewer than allowed run. */
  protected abstract next(): void;
}

interface Waiting<A, R> {
  ask: A;
  settle: Array<{ resolve: (answer: R) => void; reject: (error: unknown) => void }>;
}

/**
 * An ask that finds fewer than `atOnce` statements of its shape running goes at once, alone, with the statement it
 * always made. Asks that arrive while `atOnce` run wait, and then go together in one statement: its fixed cost (a
 * round trip, and the driver's and Neo4j's work for every statement) is paid once for all of them. Every answer is
 * read by a statement that starts after its ask arrived, so it is as current as a read of its own: nothing is
 * kept between statements. A statement that fails fails each of its asks (the read has retried it first).
 */
export class GatheredReads<A, R> extends StatementSlots {
  private readonly waiting = new Map<string, Waiting<A, R>>();

  constructor(
    private readonly read: <T>(work: (q: Query) => Promise<T>) => Promise<T>,
    private readonly shape: ReadShape<A, R>,
  ) {
    super();
  }

  get(ask: A): Promise<R> {
    if (this.running < this.shape.atOnce && this.waiting.size === 0) {
      return this.started(this.read((q) => this.shape.alone(q, ask)));
    }
    return new Promise((resolve, reject) => {
      const key = this.shape.key(ask);
      const waiting = this.waiting.get(key) ?? { ask, settle: [] };
      waiting.settle.push({ resolve, reject });
      this.waiting.set(key, waiting);
    });
  }

  protected next(): void {
    while (this.running < this.shape.atOnce && this.waiting.size > 0) {
      const batch: Array<Waiting<A, R>> = [];
      for (const [key, waiting] of this.waiting) {
        if (batch.length === this.shape.perStatement) break;
        batch.push(waiting);
        this.waiting.delete(key);
      }
      const asks = batch.map((w) => w.ask);
      const statement = batch.length === 1 ? this.read(async (q) => [await this.shape.alone(q, asks[0] as A)]) : this.read((q) => this.shape.together(q, asks));
      void this.started(statement).then(
        (answers) => batch.forEach((w, index) => w.settle.forEach((s) => s.resolve(answers[index] as R))),
        (error: unknown) => batch.forEach((w) => w.settle.forEach((s) => s.reject(error))),
      );
    }
  }
}
