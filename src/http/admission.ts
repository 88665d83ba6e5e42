// The byte budgets that bound what clients make the service hold, each refusing with 503 server_busy when full:
// ByteBudget for what a request is about to read (BULK_MEMORY_LIMIT, BODY_MEMORY_LIMIT), which waits up to
// ADMISSION_WAIT_MS for room before its body is read; SendingBudget for answers (RESPONSE_MEMORY_LIMIT), at once.
import { Semaphore, withTimeout } from 'async-mutex';
import type { Response } from 'express';
import { closeAfterAnswer } from './closing';
import { sendProblem } from './problem';

/** How long a request waits for room in a budget; also the Retry-After of its refusal, in seconds. */
export const ADMISSION_WAIT_MS = 5_000;

class NoRoom extends Error {}

/**
 * Most units a budget is counted in. async-mutex's Semaphore walks every unit of its free value on each release, so
 * a budget counted in bytes cost a release of a 32 MB budget about a hundred milliseconds of CPU.
 */
export const BUDGET_UNITS = 4096;

/** The bytes of one unit of a budget of `bytes`: shares are rounded up to whole units. */
export const budgetUnit = (bytes: number): number => Math.max(1, Math.ceil(bytes / BUDGET_UNITS));

export class ByteBudget {
  private readonly bytes;
  private readonly unit: number;

  /** `largestShare` is the most one request takes: the budget is never smaller, so such a request can get in. */
  constructor(
    private readonly setting: string,
    bytes: number,
    largestShare: number,
  ) {
    const total = Math.max(bytes, largestShare);
    this.unit = budgetUnit(total);
    this.bytes = withTimeout(new Semaphore(Math.ceil(total / this.unit)), ADMISSION_WAIT_MS, new NoRoom());
  }

  /** Takes `share` bytes, waiting up to ADMISSION_WAIT_MS for them: the release, or undefined when no room came. */
  async take(share: number): Promise<(() => void) | undefined> {
    try {
      const [, release] = await this.bytes.acquire(Math.ceil(share / this.unit));
      return release;
    } catch (e) {
      if (e instanceof NoRoom) return undefined;
      throw e;
    }
  }

  /** 503 server_busy with Retry-After. The body is left unread, so the connection closes rather than read it to its end. */
  refuse(res: Response, what: string): void {
    res.set('Retry-After', String(ADMISSION_WAIT_MS / 1000));
    closeAfterAnswer(res);
    sendProblem(res, 'server_busy', `${what} (${this.setting}); retry in ${ADMISSION_WAIT_MS / 1000} s.`);
  }
}

/**
 * Bytes of answers that Node holds until the client reads them (RESPONSE_MEMORY_LIMIT). Taken without waiting: the
 * answer is in memory already, so a request that waited would hold it all the same. An answer larger than the
 * whole budget is let through when nothing else is being sent, so that every answer can be sent.
 */
export class SendingBudget {
  private used = 0;

  constructor(private readonly bytes: number) {}

  /** Takes `share` bytes now: the release (idempotent), or undefined when they do not fit. */
  tryTake(share: number): (() => void) | undefined {
    if (this.used > 0 && this.used + share > this.bytes) return undefined;
    this.used += share;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= share;
    };
  }
}
