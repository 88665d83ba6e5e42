// HISTORY_RETENTION_DAYS: history entries older than that are deleted, in batches, at start-up and every hour.
import type { Logger } from '../logger';
import type { Store } from '../store/store';

const DAY_MS = 24 * 60 * 60 * 1000;
const EVERY_MS = 60 * 60 * 1000;
/** Entries deleted per store call: each call is one transaction, so writes wait for one batch at most. */
const BATCH = 1_000;

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

  /** Prunes now and every hour after, until stop(); a failed round is logged and tried again the next hour. */
  start(): void {
    const round = () => {
      this.prune().then(
        (deleted) => {
          if (deleted > 0) this.logger.info('deleted history entries past HISTORY_RETENTION_DAYS', { deleted });
        },
        (e: unknown) => this.logger.warn('history retention failed; trying again in an hour', { error: e instanceof Error ? e.message : String(e) }),
      );
    };
    round();
    this.timer = setInterval(round, EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
