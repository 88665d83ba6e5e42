// How the Neo4j store applies a bulk request's node writes: many lines to one transaction, yet a refused line
// changes nothing, as if each line were its own transaction.
//
// Neo4j has no savepoints, so a refused line cannot be undone alone: its transaction is rolled back whole. The
// lines therefore run in order in one transaction until one is refused. Then the lines before it run again
// together (they were fine, so that transaction commits), and the next transaction starts with the refused line:
// refused there, first of its transaction, its refusal is its own and nothing else is undone. A batch with no
// refusal is one commit; a line runs at most twice (more only when concurrent writes change the outcome of a line
// between two runs). IDs of a batch that all exist already cost one transaction each, as before batching.
import type { DomainError } from '../../domain/errors';

/** Line `at` of a batch was refused, and nothing of the batch committed. */
export interface Refusal {
  at: number;
  error: DomainError;
}

/**
 * Runs `lines` in order in one transaction: undefined when all committed; a Refusal; or 'unattributed' when the
 * transaction failed in a way that names no line (a uniqueness violation found only at commit), and nothing
 * committed. A batch of one line never answers 'unattributed'.
 */
export type RunBatch<W> = (lines: W[]) => Promise<Refusal | 'unattributed' | undefined>;

/**
 * Applies `writes` in order, at most `batchLines` to a transaction, through `runBatch`; one outcome per write
 * (undefined: applied). Errors other than refusals (the store unavailable) come out unchanged; the batches
 * before the failing one stay committed, as single writes would.
 */
export async function applyInBatches<W>(writes: W[], batchLines: number, runBatch: RunBatch<W>): Promise<Array<DomainError | undefined>> {
  const outcomes = new Array<DomainError | undefined>(writes.length).fill(undefined);
  let start = 0;
  // Lines before this index run one to a transaction (after an unattributed failure).
  let aloneUntil = 0;
  const nextEnd = () => Math.min(writes.length, start + (start < aloneUntil ? 1 : batchLines));
  // A batch ends early just before a line known to be refused, so that the lines before it commit together.
  let end = nextEnd();
  while (start < writes.length) {
    const result = await runBatch(writes.slice(start, end));
    if (result === undefined) {
      start = end;
    } else if (result === 'unattributed') {
      // One line alone always names itself; should it not, stop rather than run it for ever.
      if (end - start === 1) throw new Error('A bulk line failed without a refusal of its own.');
      aloneUntil = end;
    } else if (result.at === 0) {
      outcomes[start] = result.error;
      start += 1;
    } else {
      end = start + result.at;
      continue;
    }
    end = nextEnd();
  }
  return outcomes;
}
