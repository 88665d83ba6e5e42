// How a call waiting on the Neo4j change feed learns of a commit (docs/changes-and-export.md): any service process
// sharing the database may have written it, so while calls wait, one statement reads the counters of every customer
// they wait for (history.heads.cypher), every POLL_MS, and wakes those whose customer's counter has passed the
// position they wait past. No call holds a session or a transaction while it waits; one read serves them all.
import { ChangeSignals } from '../change-signals';

/** How often the counters are read while calls wait: a waiting call wakes within this much of a commit (and a round trip). */
export const POLL_MS = 250;

export class ChangeWatch {
  private readonly signals = new ChangeSignals();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    /** The counters of these customers; a failure is taken as no news (the calls wait on, to their own time limit). */
    private readonly heads: (customerIds: string[]) => Promise<Map<string, number>>,
    private readonly pollMs = POLL_MS,
  ) {}

  wait(customerId: string, after: number, signal: AbortSignal): Promise<void> {
    if (this.closed) return Promise.resolve();
    const waiting = this.signals.wait(customerId, after, signal);
    this.schedule();
    return waiting;
  }

  /** Wakes every call and stops reading. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.signals.wakeAll();
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => void this.poll(), this.pollMs);
    // A process that has nothing else to do may exit while calls wait: they end with it.
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const watched = this.signals.watched();
    if (watched.length > 0) {
      try {
        this.signals.wakeAbove(await this.heads(watched));
      } catch {
        // Neo4j unreachable: the calls wait on, and end at their own time limit.
      }
    }
    this.timer = undefined;
    if (this.signals.watched().length > 0) this.schedule();
  }
}
