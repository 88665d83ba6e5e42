// Who holds _bulk's slots: BULK_MEMORY_LIMIT bounds them all by bytes, and no one customer or client address holds
// more than a quarter of them, so that a few clients cannot keep every other customer's imports out.
import type { Response } from 'express';
import { ADMISSION_WAIT_MS, ByteBudget } from './admission';
import { sendProblem } from './problem';

export class BulkSlots {
  /** The most slots one customer, or one client address, holds (waiting for memory included). */
  readonly perHolder: number;
  private readonly memory: ByteBudget;
  private readonly held = new Map<string, number>();

  /** `reservation` is what each request takes of `memoryBytes` (BULK_BATCH_LIMIT + BODY_LIMIT). */
  constructor(
    memoryBytes: number,
    private readonly reservation: number,
  ) {
    this.memory = new ByteBudget('BULK_MEMORY_LIMIT', memoryBytes, reservation);
    this.perHolder = Math.max(1, Math.floor(Math.max(1, Math.floor(memoryBytes / reservation)) / 4));
  }

  /**
   * A slot for a request of `customer` from `address`: its release (idempotent); 'share' at once when either holds
   * its quarter already; 'busy' when no memory came within ADMISSION_WAIT_MS.
   */
  async take(customer: string, address: string): Promise<(() => void) | 'share' | 'busy'> {
    const holders = [`customer:${customer}`, `address:${address}`];
    if (holders.some((h) => (this.held.get(h) ?? 0) >= this.perHolder)) return 'share';
    for (const h of holders) this.held.set(h, (this.held.get(h) ?? 0) + 1);
    const giveBack = () => {
      for (const h of holders) {
        const left = (this.held.get(h) ?? 1) - 1;
        if (left > 0) this.held.set(h, left);
        else this.held.delete(h);
      }
    };
    const release = await this.memory.take(this.reservation);
    if (!release) {
      giveBack();
      return 'busy';
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
      giveBack();
    };
  }

  /** 503 server_busy with Retry-After and Connection: close (the body is left unread). */
  refuse(res: Response, why: 'share' | 'busy'): void {
    if (why === 'busy') {
      this.memory.refuse(res, 'Every bulk slot is in use');
      return;
    }
    res.set('Retry-After', String(ADMISSION_WAIT_MS / 1000)).set('Connection', 'close');
    sendProblem(
      res,
      'server_busy',
      `This customer, or this client address, holds ${this.perHolder} bulk requests already, a quarter of the slots; retry in ${ADMISSION_WAIT_MS / 1000} s.`,
    );
  }
}
