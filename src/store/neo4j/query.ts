// What a transaction of the Neo4j store hands to the code that runs statements in it.
import neo4j from 'neo4j-driver';
import type { StatementName } from './statements';

export type Row = Record<string, unknown>;

/** Runs one statement of cypher/ in the current transaction and returns its records as plain objects. */
export type Query = <T = Row>(name: StatementName, params?: Record<string, unknown>) => Promise<T[]>;

/** For integer parameters (LIMIT, list slices, ids, counters): a JS number would reach Neo4j as a float. */
export const int = (n: number) => neo4j.int(n);

/** The rows of a `*-many` statement by the ask each names in its `index` column, in the asks' order. */
export function rowsByAsk<R extends { index: number }>(rows: R[], asks: number): R[][] {
  const grouped = Array.from({ length: asks }, (): R[] => []);
  for (const row of rows) grouped[Number(row.index)]?.push(row);
  return grouped;
}

/**
 * Awaits statements sent one after the other without waiting for each answer (the driver pipelines them, and
 * Neo4j runs them in the order sent): one round trip for all. Every one settles before this does, so that the
 * transaction ends with none in flight; then the first failure, in the order given, is thrown. An undefined
 * place is a statement not sent.
 */
export async function together(...sent: Array<Promise<unknown> | undefined>): Promise<void> {
  const settled = await Promise.allSettled(sent.map((s) => s ?? Promise.resolve()));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}
