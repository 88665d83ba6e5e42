// HISTORY_RETENTION_DAYS: history entries older than that are deleted, in batches, at start-up and every hour; so
// are impression idempotency keys older than a day (extensions §4.2 keeps them at least 24 hours).
import type { Logger } from '../logger';
import type { Store } from '../store/store';

const DAY_MS = 24 * 60 * 60 * 1000;
const EVERY_MS = 60 * 60 * 1000;
/** Entries deleted per store call: each call is one transaction, so writes wait for one batch at most. */
const BATCH = 1_000;
/** How long an impression's idempotency key answers its repeats. */
export const IDEMPOTENCY_KEY_MS = DAY_MS;

export class HistoryRetention {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly retentionDays: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Deletes every entry older than the retention period; answers how many. */
  async prune(): Promise<number> {
    const before = new Date(this.now() - this.retentionDays * DAY_MS).toISOString();
    let deleted = 0;
    for (;;) {
      const batch = await this.store.pruneHistory(before, BATCH);
      deleted += batch;
      if (batch < BATCH) return deleted;
    }
  }

  /** Deletes every impression idempotency key older than IDEMPOTENCY_KEY_MS; answers how many. */
  async pruneImpressionKeys(): Promise<number> {
    const before = new Date(this.now() - IDEMPOTENCY_KEY_MS).toISOString();
    let deleted = 0;
    for (;;) {
      const batch = await this.store.pruneImpressionKeys(before, BATCH);
      deleted += batch;
      if (batch < BATCH) return deleted;
    }
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
    };
    round();
    this.timer = setInterval(round, EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
