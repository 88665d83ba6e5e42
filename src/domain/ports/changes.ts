// The port of the change feed (docs/changes-and-export.md): the customer's node history as one sequence. Each entry has
// a position in it, `seq`, given when its write commits: a write answered before another was sent has the smaller
// one, and a read never sees a position before it has seen every smaller one of the customer.
import type { HistoryEntry } from '../model';

/** One entry of the feed: its position, and, for an erase, the positions of the earlier entries it redacted. */
export interface Change {
  seq: number;
  entry: HistoryEntry;
  redacts?: number[];
}

/** A page of the feed, and where the customer's feed stands. */
export interface ChangeRead {
  /** The customer's entries after the position asked for, oldest first. */
  changes: Change[];
  /** The newest position the store has given out (to this customer or, on a store with one sequence, to any). */
  head: number;
  /** The newest position of the customer that retention deleted (0 when none): a consumer behind it missed entries. */
  prunedThrough: number;
  /** The page ended at CHANGE_PAGE_CHARS, before `limit`: an entry follows it. */
  cut: boolean;
}

/**
 * How large a page of the feed grows, in characters of its entries' JSON (an entry measured as the store keeps it):
 * a page ends before the entry that would pass this, but holds its first entry whatever its size. A page of large
 * entries (an insert of many long IDs, a deletion that lists every ID its node held) so stays small in memory, where
 * `limit` alone would let a few hundred of them take gigabytes.
 */
export const CHANGE_PAGE_CHARS = 1024 * 1024;

export interface ChangeFeedStore {
  /**
   * The store's secret for the feed's cursors: random, made with the store and never copied out of it (not by an
   * export, a migrate or a backup's restore of another store's data into it), so a cursor one store gave is refused
   * by every other. The same for every process of one store.
   */
  feedKey(): Promise<string>;
  /**
   * Up to `limit` of the customer's entries after position `after`, oldest first, and no more than CHANGE_PAGE_CHARS
   * of them, with the feed's state.
   */
  changesAfter(customerId: string, after: number, limit: number): Promise<ChangeRead>;
  /**
   * Resolves when the customer may have an entry after `after` (a commit since the call, in this process or, on a
   * shared store, in another, seen within a second), or when `signal` aborts. Holds no connection while it waits.
   */
  waitForChange(customerId: string, after: number, signal: AbortSignal): Promise<void>;
}
