// HISTORY_RETENTION_DAYS: history entries older than that are deleted, in batches, at start-up and every hour; so
// are impression idempotency keys older than a day (docs/deliveries.md keeps them 24 hours). What deleted
// deliveries left (their impressions and keys) is deleted in batches after each delete, and in those rounds too.
import type { Logger } from '../logger';
import type { DeliveryStore } from './ports/deliveries';
import type { HistoryStore } from './ports/history';
import type { ShowingStore } from './ports/showing';

const DAY_MS = 24 * 60 * 60 * 1000;
const EVERY_MS = 60 * 60 * 1000;
/** Entries deleted per store call: each call is one transaction, so writes wait for one batch at most. */
const BATCH = 1_000;
/** How long an impression's idempotency key answers its repeats. */
export const IDEMPOTENCY_KEY_MS = DAY_MS;

/**
 * Calls `deleteUpTo(BATCH)` until a call deletes fewer than BATCH, each its own transaction; answers how many went
 * in all. `counted` sees each batch's count as it comes (what a failure midway had deleted).
 */
async function inBatches(deleteUpTo: (limit: number) => Promise<number>, counted: (deleted: number) => void = () => undefined): Promise<number> {
  let deleted = 0;
  for (;;) {
    const batch = await deleteUpTo(BATCH);
    deleted += batch;
    counted(batch);
    if (batch < BATCH) return deleted;
  }
}

/**
 * Deletes what deleted deliveries left (DeliveryStore.sweepDeletedDeliveries) in batches of BATCH, each its own
 * transaction: a delivery counted for millions of IDs is deleted without one transaction holding them all. It runs
 * after each delete (DeliveryService) and in every retention round, which resumes a sweep that a stop or a store
 * failure cut short. One sweep at a time: a request during one makes it go round once more.
 */
export class DeletedDeliverySweep {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly store: Pick<DeliveryStore, 'sweepDeletedDeliveries'>,
    private readonly logger: Logger,
  ) {}

  /** Starts a sweep, or has the running one go round once more; resolves when it ends (it never rejects). */
  sweep(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      let deleted = 0;
      try {
        await inBatches(
          (limit) => this.store.sweepDeletedDeliveries(limit),
          (batch) => (deleted += batch),
        );
      } catch (e) {
        this.logger.warn('deleting the impressions of deleted deliveries failed; trying again at the next delete or retention round', {
          error: e instanceof Error ? e.message : String(e),
        });
        return;
      } finally {
        if (deleted > 0) this.logger.info('deleted the impressions and idempotency keys of deleted deliveries', { deleted });
      }
    } while (this.again);
  }
}

export class HistoryRetention {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Pick<HistoryStore, 'pruneHistory'> & Pick<ShowingStore, 'pruneImpressionKeys'> & Pick<DeliveryStore, 'sweepDeletedDeliveries'>,
    private readonly retentionDays: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly deletedDeliveries: DeletedDeliverySweep = new DeletedDeliverySweep(store, logger),
  ) {}

  /** Deletes every entry older than the retention period; answers how many. */
  async prune(): Promise<number> {
    const before = new Date(this.now() - this.retentionDays * DAY_MS).toISOString();
    return inBatches((limit) => this.store.pruneHistory(before, limit));
  }

  /** Deletes every impression idempotency key older than IDEMPOTENCY_KEY_MS; answers how many. */
  async pruneImpressionKeys(): Promise<number> {
    const before = new Date(this.now() - IDEMPOTENCY_KEY_MS).toISOString();
    return inBatches((limit) => this.store.pruneImpressionKeys(before, limit));
  }

  /** Prunes now and every hour after, until stop(); a failed round is logged and tried again the next hour. */
  start(): void {
    const failed = (e: unknown) => this.logger.warn('retention failed; trying again in an hour', { error: e instanceof Error ? e.message : String(e) });
    const round = () => {
      this.prune().then((deleted) => {
        if (deleted > 0) this.logger.info('deleted history entries past HISTORY_RETENTION_DAYS', { deleted });
      }, failed);
      this.pruneImpressionKeys().then((deleted) => {
        if (deleted > 0) this.logger.info('deleted impression idempotency keys older than a day', { deleted });
      }, failed);
      void this.deletedDeliveries.sweep();
    };
    round();
    this.timer = setInterval(round, EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
