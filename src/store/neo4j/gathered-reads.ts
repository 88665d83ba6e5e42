// Concurrent reads of one shape sharing one statement (./batcher.ts): any read whose asks a `*-many` statement
// answers together (a token by its hash, a customer's policy, a catalogue, a person's counts).
import { Batcher } from './batcher';
import type { Query } from './query';

/** How a read of one shape runs alone, and how a `*-many` statement runs many of them at once. */
export interface ReadShape<A, R> {
  /** Asks with the same key have the same answer: waiting ones share one place in the statement. */
  key: (ask: A) => string;
  /** A lone ask: the statement a call makes when nothing else of its shape is waiting. */
  alone: (q: Query, ask: A) => Promise<R>;
  /** Distinct asks in one statement; the answers in the asks' order. */
  together: (q: Query, asks: A[]) => Promise<R[]>;
  /** How many statements of the shape run at once before new asks wait to go together (per partition, when given). */
  atOnce: number;
  /** Most asks one statement carries. */
  perStatement: number;
  /** Asks share a statement, and its slots, only within one partition (the bounds that are its LIMIT). */
  partition?: (ask: A) => string;
}

/**
 * An ask that finds fewer than `atOnce` statements of its shape running goes at once, alone, with the statement it
 * always made; asks that arrive meanwhile wait, and then go together in one statement (one that waited alone, in its
 * own). Every answer is read by a statement that starts after its ask arrived, so it is as current as a read of its
 * own: nothing is kept between statements. A statement that fails fails each of its asks (the read has retried it
 * first).
 */
export class GatheredReads<A, R> {
  private readonly batcher: Batcher<A, R>;

  constructor(read: <T>(work: (q: Query) => Promise<T>) => Promise<T>, shape: ReadShape<A, R>) {
    const alone = (ask: A) => read((q) => shape.alone(q, ask));
    this.batcher = new Batcher<A, R>({
      alone,
      together: async (asks) => {
        const [first] = asks;
        const answers = asks.length === 1 && first !== undefined ? [await alone(first)] : await read((q) => shape.together(q, asks));
        return answers.map((value) => ({ status: 'fulfilled', value }));
      },
      key: shape.key,
      partition: shape.partition,
      lane: shape.partition,
      slots: shape.atOnce,
      perBatch: shape.perStatement,
    });
  }

  get(ask: A): Promise<R> {
    return this.batcher.ask(ask);
  }
}
