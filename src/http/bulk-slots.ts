// Who holds _bulk's slots. BULK_MEMORY_LIMIT bounds them all by bytes. No one customer's callers with a token, no
// one customer's anonymous callers, and no one client address (anonymous) hold more than a quarter of them, and
// requests without a token (for customers that allow anonymous writes) hold at most three quarters together: the
// last quarter, as much as one customer's token holders may take, is kept for callers with a token, whatever
// anonymous senders do. A caller with its customer's token is so refused only when its own customer's token holders
// have their quarter, or when another customer's token holders fill the kept quarter.
import type { Response } from 'express';
import { ADMISSION_WAIT_MS, ByteBudget } from './admission';
import { closeAfterAnswer } from './closing';
import { sendProblem } from './problem';

/** Who asks for a slot: a caller with a token for `customer` (or the administrator's), or an anonymous one from `address`. */
export interface BulkCaller {
  customer: string;
  authenticated: boolean;
  address: string;
}

/** Why no slot: 'share' when a holder has its quarter, 'anonymous' when anonymous requests hold their half, 'busy' when no memory came in time. */
export type NoSlot = 'share' | 'anonymous' | 'busy';

export class BulkSlots {
  /** The most slots one holder takes (waiting for memory included). */
  readonly perHolder: number;
  /** The most slots anonymous requests take together. */
  readonly anonymousMost: number;
  private readonly memory: ByteBudget;
  private readonly held = new Map<string, number>();

  /** `reservation` is what each request takes of `memoryBytes` (BULK_BATCH_LIMIT + BODY_LIMIT). */
  constructor(
    memoryBytes: number,
    private readonly reservation: number,
  ) {
    this.memory = new ByteBudget('BULK_MEMORY_LIMIT', memoryBytes, reservation);
    const slots = Math.max(1, Math.floor(memoryBytes / reservation));
    this.perHolder = Math.max(1, Math.floor(slots / 4));
    // With a single slot nothing can be kept back: anonymous callers may then take it.
    this.anonymousMost = Math.max(1, slots - this.perHolder);
  }

  /**
   * A slot for `caller`: its release (idempotent), or at once why none when one of its holders has its share; 'busy'
   * when no memory came within ADMISSION_WAIT_MS.
   */
  async take(caller: BulkCaller): Promise<(() => void) | NoSlot> {
    const holders = caller.authenticated
      ? [{ key: `token:${caller.customer}`, most: this.perHolder }]
      : [
          { key: `anonymous:${caller.customer}`, most: this.perHolder },
          { key: `address:${caller.address}`, most: this.perHolder },
          { key: 'anonymous', most: this.anonymousMost },
        ];
    const full = holders.find((h) => (this.held.get(h.key) ?? 0) >= h.most);
    if (full) return full.key === 'anonymous' ? 'anonymous' : 'share';
    for (const { key } of holders) this.held.set(key, (this.held.get(key) ?? 0) + 1);
    const giveBack = () => {
      for (const { key } of holders) {
        const left = (this.held.get(key) ?? 1) - 1;
        if (left > 0) this.held.set(key, left);
        else this.held.delete(key);
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
  refuse(res: Response, why: NoSlot): void {
    if (why === 'busy') {
      this.memory.refuse(res, 'Every bulk slot is in use');
      return;
    }
    res.set('Retry-After', String(ADMISSION_WAIT_MS / 1000));
    closeAfterAnswer(res);
    sendProblem(
      res,
      'server_busy',
      why === 'anonymous'
        ? `Requests without a token hold ${this.anonymousMost} bulk requests already, the slots not kept for callers with a token; send your token, or retry in ${ADMISSION_WAIT_MS / 1000} s.`
        : `This customer, or this client address, holds ${this.perHolder} bulk requests already, a quarter of the slots; retry in ${ADMISSION_WAIT_MS / 1000} s.`,
    );
  }
}
