// The Neo4j store's bulk batching (src/store/neo4j/neo4j-bulk.ts) against a model: a set of keys where a line
// creates or deletes a key and is refused when the key is already there or missing. Run one line to a
// transaction, the lines must give the same outcomes and the same final set as run in batches. The store's own
// batches on a real Neo4j are checked by the store contract (applyNodeWrites) and test/neo4j/bulk.neo4j.test.ts.
import fc from 'fast-check';
import { DomainError } from '../../src/domain/errors';
import { applyInBatches, type Refusal, type RunBatch } from '../../src/store/neo4j/neo4j-bulk';

type Line = { op: 'create' | 'delete'; key: number };

/** Applies one line to `keys`, or says why it is refused. */
function apply(keys: Set<number>, line: Line): DomainError | undefined {
  if (line.op === 'create') {
    if (keys.has(line.key)) return new DomainError('node_exists', `key ${line.key} exists`);
    keys.add(line.key);
  } else {
    if (!keys.has(line.key)) return new DomainError('node_not_found', `key ${line.key} is missing`);
    keys.delete(line.key);
  }
  return undefined;
}

/** A store of keys whose transactions commit all their lines or none; counts transactions and runs per line. */
function modelStore(initial: number[], options: { unattributedAt?: (lines: Line[]) => boolean } = {}) {
  const keys = new Set(initial);
  const runs = new Map<Line, number>();
  let transactions = 0;
  const runBatch: RunBatch<Line> = async (lines) => {
    transactions += 1;
    const draft = new Set(keys);
    for (const [at, line] of lines.entries()) {
      runs.set(line, (runs.get(line) ?? 0) + 1);
      const error = apply(draft, line);
      if (error) return { at, error } satisfies Refusal;
    }
    if (lines.length > 1 && options.unattributedAt?.(lines)) return 'unattributed';
    for (const k of [...keys]) if (!draft.has(k)) keys.delete(k);
    for (const k of draft) keys.add(k);
    return undefined;
  };
  return { keys, runs, runBatch, transactions: () => transactions };
}

/** What running each line in its own transaction gives. */
function oneByOne(initial: number[], lines: Line[]) {
  const keys = new Set(initial);
  const outcomes = lines.map((line) => apply(keys, line)?.code);
  return { keys, outcomes };
}

const lineArb = fc.record({ op: fc.constantFrom<'create' | 'delete'>('create', 'delete'), key: fc.integer({ min: 0, max: 8 }) });
const linesArb = fc.array(lineArb, { maxLength: 40 });
const initialArb = fc.uniqueArray(fc.integer({ min: 0, max: 8 }), { maxLength: 6 });

describe('applyInBatches (bulk lines in shared transactions, refused lines undone alone)', () => {
  test('when lines are refused anywhere, then outcomes and the final state are those of one transaction per line', async () => {
    await fc.assert(
      fc.asyncProperty(initialArb, linesArb, fc.integer({ min: 1, max: 12 }), async (initial, lines, batchLines) => {
        const store = modelStore(initial);
        const outcomes = await applyInBatches(lines, batchLines, store.runBatch);
        const expected = oneByOne(initial, lines);
        expect(outcomes.map((o) => o?.code)).toEqual(expected.outcomes);
        expect([...store.keys].sort()).toEqual([...expected.keys].sort());
      }),
    );
  });

  test('when lines are refused anywhere, then no line runs more than twice', async () => {
    await fc.assert(
      fc.asyncProperty(initialArb, linesArb, fc.integer({ min: 1, max: 12 }), async (initial, lines, batchLines) => {
        // Distinct line objects, so that runs are counted per line.
        const distinct = lines.map((l) => ({ ...l }));
        const store = modelStore(initial);
        await applyInBatches(distinct, batchLines, store.runBatch);
        for (const line of distinct) expect(store.runs.get(line)).toBeLessThanOrEqual(2);
      }),
    );
  });

  test('when no line is refused, then each batch of lines is one transaction', async () => {
    const lines: Line[] = Array.from({ length: 250 }, (_, key) => ({ op: 'create', key }));
    const store = modelStore([]);
    const outcomes = await applyInBatches(lines, 100, store.runBatch);
    expect(outcomes.every((o) => o === undefined)).toBe(true);
    expect(store.transactions()).toBe(3);
  });

  test('when every line is refused, then each costs one transaction, as one transaction per line would', async () => {
    const lines: Line[] = Array.from({ length: 20 }, (_, key) => ({ op: 'delete', key }));
    const store = modelStore([]);
    const outcomes = await applyInBatches(lines, 100, store.runBatch);
    expect(outcomes.map((o) => o?.code)).toEqual(lines.map(() => 'node_not_found'));
    expect(store.transactions()).toBe(20);
  });

  test('when a batch fails without naming a line, then its lines run one to a transaction and the next batch is whole again', async () => {
    const lines: Line[] = Array.from({ length: 12 }, (_, key) => ({ op: 'create', key }));
    // Only the first batch (it starts with key 0) fails unattributed.
    const store = modelStore([], { unattributedAt: (batch) => batch[0]?.key === 0 });
    const outcomes = await applyInBatches(lines, 5, store.runBatch);
    expect(outcomes.every((o) => o === undefined)).toBe(true);
    expect([...store.keys].sort((a, b) => a - b)).toEqual(lines.map((l) => l.key));
    // The failed batch, its 5 lines alone, then batches [5, 10) and [10, 12).
    expect(store.transactions()).toBe(1 + 5 + 2);
  });

  test('when a batch of one line fails without naming it, then applyInBatches rejects instead of running it for ever', async () => {
    const runBatch: RunBatch<Line> = async () => 'unattributed';
    await expect(applyInBatches([{ op: 'create', key: 1 }], 10, runBatch)).rejects.toThrow('without a refusal');
  });
});
