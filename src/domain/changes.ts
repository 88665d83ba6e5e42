// The change feed (docs/changes-and-export.md): a customer's node history as one sequence of changes, each with a cursor
// that names its position. Cursors are opaque to clients: the position and a digest, keyed by the store's feed key,
// that binds it to the customer and the store, so a cursor of another customer, or one this store could not have
// given (another store's, from before a migrate or an import of the same customer), is refused.
import { createHmac } from 'node:crypto';
import { defaultMaxListeners, setMaxListeners } from 'node:events';
import { DomainError } from './errors';
import type { HistoryEntry } from './model';
import type { Change, ChangeFeedStore } from './ports/changes';
import { type Caller, requireCustomerToken } from './tokens';

/** A change as the feed shows it: the entry, its cursor and, for an erase, the cursors of what it redacted. */
export interface CursorChange {
  cursor: string;
  entry: HistoryEntry;
  redacts?: string[];
}

export interface ChangePage {
  changes: CursorChange[];
  next: string;
}

export interface ChangeQuery {
  after?: string;
  limit: number;
  /** Seconds to wait for a change when there is none after the cursor. */
  wait: number;
}

export interface ChangeFeedLimits {
  /** How many calls may wait for a change at once, streams included; server_busy past it. */
  maxWaiting: number;
}

/** Changes read at once for a stream. */
const FOLLOW_PAGE = 500;

const CURSOR = /^c([0-9a-z]{1,11})-([A-Za-z0-9_-]{16})$/;

const invalidCursor = () => new DomainError('invalid_cursor', 'The cursor was not given by this service for this customer.');

/** The cursors of one store's feed: each a position of a customer's feed and its digest under the store's feed key. */
export class FeedCursors {
  constructor(private readonly key: string) {}

  /** The cursor of position `seq` of the customer's feed. */
  cursorOf(customerId: string, seq: number): string {
    return `c${seq.toString(36)}-${this.digest(customerId, seq)}`;
  }

  /** The position a cursor names; invalid_cursor when the cursor is not one this store gives the customer. */
  positionOf(customerId: string, cursor: string): number {
    const parts = CURSOR.exec(cursor);
    if (!parts) throw invalidCursor();
    const seq = Number.parseInt(parts[1] as string, 36);
    if (!Number.isSafeInteger(seq) || this.cursorOf(customerId, seq) !== cursor) throw invalidCursor();
    return seq;
  }

  private digest(customerId: string, seq: number): string {
    return createHmac('sha256', this.key).update(`changes\u0000${customerId}\u0000${seq}`).digest('base64url').slice(0, 16);
  }
}

/** The cursors of the store's feed, its key read from the store (which keeps it between reads). */
export const feedCursors = async (store: Pick<ChangeFeedStore, 'feedKey'>): Promise<FeedCursors> => new FeedCursors(await store.feedKey());

/**
 * A signal that aborts after `ms`, or when any of `signals` does; `dispose` clears its timer and listeners. Made by
 * hand rather than with AbortSignal.any and AbortSignal.timeout: a timeout signal referenced only through any() may
 * be garbage-collected before it fires (Node keeps any()'s sources weakly: nodejs/node#57736), and a wait would
 * then never end.
 */
function abortingAfter(ms: number, ...signals: AbortSignal[]): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  const timer = setTimeout(abort, ms);
  for (const s of signals) {
    if (s.aborted) abort();
    else s.addEventListener('abort', abort, { once: true });
  }
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener('abort', abort);
    },
  };
}

export class ChangeFeedService {
  private waiting = 0;

  constructor(
    private readonly store: ChangeFeedStore,
    private readonly limits: ChangeFeedLimits,
    /** Aborts when the service stops: every waiting call answers at once. */
    private readonly stopping: AbortSignal = new AbortController().signal,
  ) {
    // Each waiting call listens to it, and there are at most maxWaiting: more than Node's 10 is no leak to warn of.
    setMaxListeners(Math.max(defaultMaxListeners, limits.maxWaiting + 1), stopping);
  }

  /**
   * The changes after `query.after` (from the oldest history keeps without it), up to `query.limit`; with
   * `query.wait`, waits that many seconds at most for one when there is none. `signal`: the caller went away.
   */
  async page(caller: Caller, customerId: string, query: ChangeQuery, signal: AbortSignal): Promise<ChangePage> {
    requireCustomerToken(caller, customerId);
    const cursors = await feedCursors(this.store);
    const after = query.after === undefined ? undefined : cursors.positionOf(customerId, query.after);
    const first = await this.read(cursors, customerId, after, query.limit);
    if (first.changes.length > 0 || query.wait <= 0 || signal.aborted || this.stopping.aborted) return { changes: first.changes, next: first.next };
    const from = first.nextSeq;
    let page = first;
    await this.whileWaiting(query.wait * 1000, signal, async (waited) => {
      while (!waited.aborted) {
        await this.store.waitForChange(customerId, from, waited);
        if (waited.aborted) return;
        page = await this.read(cursors, customerId, from, query.limit);
        if (page.changes.length > 0) return;
      }
    });
    return { changes: page.changes, next: page.next };
  }

  /**
   * Runs `work` as one of the waiting calls (server_busy past LIMITS.maxWaiting), with a signal that aborts after
   * `ms`, when `signal` aborts, or when the service stops.
   */
  private async whileWaiting<T>(ms: number, signal: AbortSignal, work: (waited: AbortSignal) => Promise<T>): Promise<T> {
    if (this.waiting >= this.limits.maxWaiting) {
      throw new DomainError('server_busy', 'Too many calls are waiting for changes (CHANGES_MAX_WAITING); retry later.');
    }
    this.waiting += 1;
    const waited = abortingAfter(ms, signal, this.stopping);
    try {
      return await work(waited.signal);
    } finally {
      waited.dispose();
      this.waiting -= 1;
    }
  }

  /**
   * A stream of the changes after `after` (from the oldest history keeps without it): every page goes to
   * `sink.changes` as soon as it is read (which resolves once the client took it, or when `streaming` aborts: the
   * stream's time is up, the caller went away or the service stops), `sink.idle` is called after
   * `idleMs` without a change, and the stream ends after `durationMs`, when `signal` aborts, or when the service
   * stops. invalid_cursor, cursor_expired and server_busy are thrown before anything is sent.
   */
  async follow(
    caller: Caller,
    customerId: string,
    after: string | undefined,
    timing: { durationMs: number; idleMs: number },
    signal: AbortSignal,
    sink: { start(): void; changes(changes: CursorChange[], streaming: AbortSignal): Promise<void>; idle(): void },
  ): Promise<void> {
    requireCustomerToken(caller, customerId);
    let cursors = await feedCursors(this.store);
    let page = await this.read(cursors, customerId, after === undefined ? undefined : cursors.positionOf(customerId, after), FOLLOW_PAGE);
    await this.whileWaiting(timing.durationMs, signal, async (streaming) => {
      sink.start();
      for (;;) {
        if (page.changes.length > 0) await sink.changes(page.changes, streaming);
        if (streaming.aborted) return;
        const from = page.nextSeq;
        // A page cut short by its size (CHANGE_PAGE_CHARS) has more after it, at once.
        if (page.changes.length < FOLLOW_PAGE && !page.cut) {
          const idle = abortingAfter(timing.idleMs, streaming);
          try {
            await this.store.waitForChange(customerId, from, idle.signal);
          } finally {
            idle.dispose();
          }
          if (streaming.aborted) return;
          if (idle.signal.aborted) sink.idle();
        }
        // The store's key as it is now (it changes only with the store's data), for a stream that lasts.
        cursors = await feedCursors(this.store);
        page = await this.read(cursors, customerId, from, FOLLOW_PAGE);
      }
    });
  }

  /** How many calls wait now. */
  get waitingCalls(): number {
    return this.waiting;
  }

  /** One read of the feed: invalid_cursor past what was given, cursor_expired behind what retention kept. */
  private async read(
    cursors: FeedCursors,
    customerId: string,
    after: number | undefined,
    limit: number,
  ): Promise<ChangePage & { nextSeq: number; cut: boolean }> {
    const read = await this.store.changesAfter(customerId, after ?? 0, limit);
    if (after !== undefined && after > read.head) throw invalidCursor();
    if (after !== undefined && after < read.prunedThrough) {
      throw new DomainError(
        'cursor_expired',
        'History no longer keeps the changes after this cursor (HISTORY_RETENTION_DAYS); start again from the current state.',
      );
    }
    const changes = read.changes.map((c) => shown(cursors, customerId, c));
    const last = read.changes.at(-1);
    const next = last ? last.seq : (after ?? Math.max(read.head, read.prunedThrough));
    return { changes, next: cursors.cursorOf(customerId, next), nextSeq: next, cut: read.cut };
  }
}

const shown = (cursors: FeedCursors, customerId: string, c: Change): CursorChange => ({
  cursor: cursors.cursorOf(customerId, c.seq),
  entry: c.entry,
  ...(c.entry.op === 'erase' ? { redacts: (c.redacts ?? []).map((seq) => cursors.cursorOf(customerId, seq)) } : {}),
});
