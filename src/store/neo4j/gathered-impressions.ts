// Concurrent impressions of the Neo4j store sharing one auto-commit statement (./batcher.ts): the fixed cost of a
// statement and of its transaction (a round trip, the driver's and Neo4j's work for every statement, the commit) is
// paid once for several.
import { randomUUID } from 'node:crypto';
import type { ImpressionOutcome } from '../../domain/deliveries';
import type { MarkedImpression } from './checked-showing';
import { Batcher } from './batcher';
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

/**
 * Store.recordImpression on Neo4j. An impression that finds fewer than `atOnce` statements running goes at once,
 * alone, with the statement it always makes. Impressions that arrive while `atOnce` run wait, and then go together,
 * in arrival order, in one statement (impression.count.cypher), which takes their deliveries' locks in one order:
 * one impression of a delivery a statement, and those of the same bounds (maxNodes, maxIds, the statement's LIMIT);
 * an impression of a delivery already in it waits for the next. Each is checked, refused or counted on its own, as
 * alone: the caller gets its own answer or refusal, and a run again after a lost reply answers what the committed
 * run counted (each impression has its write id from its arrival). An error that is no refusal (the store
 * unavailable) fails all the statement's impressions. A statement has the time its longest-waiting impression has
 * left of `limitMs`.
 */
export class ImpressionGathering {
  private readonly batcher: Batcher<WrittenImpression, ImpressionOutcome>;

  constructor(writer: ImpressionWriter, options: ImpressionGatheringOptions) {
    const alone = (impression: WrittenImpression, limitMs: number) => writer.writeAlone((q) => writer.alone(q, impression), limitMs);
    this.batcher = new Batcher<WrittenImpression, ImpressionOutcome>({
      alone: (impression, turn) => alone(impression, turn.limitMs),
      together: async (impressions, turn) => {
        const [first] = impressions;
        if (impressions.length === 1 && first !== undefined) return [{ status: 'fulfilled', value: await alone(first, turn.limitMs) }];
        return writer.writeAlone((q) => writer.together(q, impressions), turn.limitMs);
      },
      partition: ({ request }) => `${request.person.maxNodes} ${request.person.maxIds}`,
      distinct: ({ request }) => JSON.stringify([request.person.customerId, request.deliveryId]),
      slots: options.atOnce,
      perBatch: options.perStatement,
      limitMs: options.limitMs,
    });
  }

  record(request: MarkedImpression): Promise<ImpressionOutcome> {
    return this.batcher.ask({ request, writeId: randomUUID() });
  }
}
