// Concurrent impressions of the Neo4j store sharing one auto-commit statement, as concurrent reads do
// (./gathered-reads.ts): the fixed cost of a statement and of its transaction (a round trip, the driver's and Neo4j's
// work for every statement, the commit) is paid once for several.
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../domain/errors';
import type { ImpressionOutcome, ImpressionRequest } from '../../domain/deliveries';
import { StatementSlots } from './gathered-reads';
import type { WrittenImpression } from './neo4j-impressions';
import type { Query } from './query';

/** How impressions are written: alone, or several of distinct deliveries in one statement, each settled on its own. */
export interface ImpressionWriter {
  /** An auto-commit write within `limitMs` (Transactions.writeAlone), whose write id the caller makes here. */
  writeAlone: <T>(work: (q: Query) => Promise<T>, limitMs: number) => Promise<T>;
  alone: (q: Query, impression: WrittenImpression) => Promise<ImpressionOutcome>;
  together: (q: Query, impressions: WrittenImpression[]) => Promise<Array<PromiseSettledResult<ImpressionOutcome>>>;
}

export interface ImpressionGatheringOptions {
  /** The store's time limit of a call (NEO4J_CALL_TIMEOUT_MS): a waiting impression's runs from its arrival. */
  limitMs: number;
  /** How many impression statements run at once before new impressions wait to go together. */
  atOnce: number;
  /** Most impressions one statement carries: its deliveries' locks are held until it commits. */
  perStatement: number;
}

interface Waiting extends WrittenImpression {
  /** When it arrived (Date.now()). */
  since: number;
  resolve: (outcome: ImpressionOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Store.recordImpression on Neo4j. An impression that finds fewer than `atOnce` statements running goes at once,
 * alone, with the statement it always makes. Impressions that arrive while `atOnce` run wait, and then go together,
 * in arrival order, in one statement (impression.count.cypher), which takes their deliveries' locks in one order:
 * one impression of a delivery a statement, and those of the same bounds (maxNodes, maxIds); an impression of a
 * delivery already in it waits for the next. Each is checked, refused or counted on its own, as alone: the caller
 * gets its own answer or refusal, and a run again after a lost reply answers what the committed run counted (each
 * impression has its write id from its arrival). An error that is no refusal (the store unavailable) fails all the
 * statement's impressions. A statement has the time its longest-waiting impression has left of `limitMs`.
 */
export class ImpressionGathering extends StatementSlots {
  /** In arrival order. */
  private waiting: Waiting[] = [];

  constructor(
    private readonly writer: ImpressionWriter,
    private readonly options: ImpressionGatheringOptions,
  ) {
    super();
  }

  record(request: ImpressionRequest): Promise<ImpressionOutcome> {
    const impression = { request, writeId: randomUUID() };
    if (this.running < this.options.atOnce && this.waiting.length === 0) {
      return this.started(this.writer.writeAlone((q) => this.writer.alone(q, impression), this.options.limitMs));
    }
    return new Promise((resolve, reject) => this.waiting.push({ ...impression, since: Date.now(), resolve, reject }));
  }

  protected next(): void {
    while (this.running < this.options.atOnce && this.waiting.length > 0) {
      const batch = this.nextBatch();
      const left = this.options.limitMs - (Date.now() - Math.min(...batch.map((w) => w.since)));
      if (left <= 0) {
        const late = new DomainError('store_unavailable', `Neo4j did not answer within ${this.options.limitMs / 1000} s.`);
        for (const w of batch) w.reject(late);
        continue;
      }
      const statement =
        batch.length === 1
          ? this.writer.writeAlone(async (q) => [{ status: 'fulfilled' as const, value: await this.writer.alone(q, batch[0] as Waiting) }], left)
          : this.writer.writeAlone((q) => this.writer.together(q, batch), left);
      void this.started(statement).then(
        (settled) =>
          batch.forEach((w, index) => {
            const s = settled[index];
            if (s?.status === 'fulfilled') w.resolve(s.value);
            else w.reject(s?.reason ?? new Error('impression.count answered no outcome for an impression'));
          }),
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      );
    }
  }

  /** The first waiting impression, and after it, in arrival order, those of other deliveries and the same bounds. */
  private nextBatch(): Waiting[] {
    const [first] = this.waiting as [Waiting];
    const bounds = (w: Waiting) => `${w.request.person.maxNodes} ${w.request.person.maxIds}`;
    const delivery = (w: Waiting) => JSON.stringify([w.request.person.customerId, w.request.deliveryId]);
    const taken = new Set<string>();
    const batch: Waiting[] = [];
    const left: Waiting[] = [];
    for (const w of this.waiting) {
      if (batch.length < this.options.perStatement && bounds(w) === bounds(first) && !taken.has(delivery(w))) {
        taken.add(delivery(w));
        batch.push(w);
      } else {
        left.push(w);
      }
    }
    this.waiting = left;
    return batch;
  }
}
