// The queueing of src/store/neo4j/write-gathering.ts with fake transactions whose end the test decides: which writes
// go alone, which wait and go together, and what each caller hears. The real store's gathered writes are checked
// by write-gathering.neo4j.test.ts.
import { DomainError } from '../../src/domain/errors';
import type { RunBatch } from '../../src/store/neo4j/neo4j-bulk';
import { NodeWriteGathering } from '../../src/store/neo4j/write-gathering';
import { heardOf, settle } from '../helpers/settling';

type Write = { node: { customerId: string }; name: string; refused?: boolean };

const write = (customerId: string, name: string, refused = false): Write => ({ node: { customerId }, name, refused });

/**
 * Transactions that end when the test says: `alone` runs one write, `together` a batch (refusing its first refused
 * write). `commit` sends a transaction's COMMIT (it says so to the gathering) without ending it.
 */
function fakeStore() {
  const transactions: Array<{ names: string[]; end: (error?: Error) => void; commit: () => void }> = [];
  const started = (names: string[], committing: () => void) =>
    new Promise<void>((resolve, reject) => transactions.push({ names, end: (error) => (error ? reject(error) : resolve()), commit: committing }));
  const alone = async (w: Write, committing: () => void) => {
    await started([w.name], committing);
    if (w.refused) throw new DomainError('node_exists', `${w.name} exists`);
  };
  const together = async (lines: Write[], _limitMs: number, committing: () => void): ReturnType<RunBatch<Write>> => {
    await started(
      lines.map((l) => l.name),
      committing,
    );
    const at = lines.findIndex((l) => l.refused);
    return at < 0 ? undefined : { at, error: new DomainError('node_exists', `${lines[at]?.name} exists`) };
  };
  return { transactions, alone, together };
}

describe('gathering of single node writes', () => {
  test('when fewer than atOnce transactions run, none of its customer, then a write goes alone at once', async () => {
    const store = fakeStore();
    const gathering = new NodeWriteGathering<Write>(store.alone, store.together, { limitMs: Infinity, atOnce: 2, perTransaction: 8 });
    const heard = heardOf({ a: gathering.apply(write('c1', 'a')), b: gathering.apply(write('c2', 'b')) });
    await settle();
    expect(store.transactions.map((t) => t.names)).toEqual([['a'], ['b']]);
    store.transactions.forEach((t) => t.end());
    await settle();
    expect(heard).toEqual({ a: 'ok', b: 'ok' });
  });

  test('when its customer has a transaction running, then a write waits for it though a slot is free, and the next customer with none takes the slot', async () => {
    const store = fakeStore();
    const gathering = new NodeWriteGathering<Write>(store.alone, store.together, { limitMs: Infinity, atOnce: 2, perTransaction: 8 });
    const heard = heardOf({
      first: gathering.apply(write('c1', 'first')),
      x1: gathering.apply(write('c1', 'x1')),
      x2: gathering.apply(write('c1', 'x2')),
      y1: gathering.apply(write('c2', 'y1')),
    });
    await settle();
    // c1 waits behind its running transaction; c2 has none, so y1 goes at once.
    expect(store.transactions.map((t) => t.names)).toEqual([['first'], ['y1']]);
    store.transactions[1]?.end();
    await settle();
    // The free slot is not c1's while its transaction runs.
    expect(store.transactions).toHaveLength(2);
    expect(heard).toEqual({ first: undefined, x1: undefined, x2: undefined, y1: 'ok' });
    store.transactions[0]?.end();
    await settle();
    expect(store.transactions[2]?.names).toEqual(['x1', 'x2']);
    store.transactions[2]?.end();
    await settle();
    expect(heard).toEqual({ first: 'ok', x1: 'ok', x2: 'ok', y1: 'ok' });
  });

  test("when its customer's transaction sends its COMMIT, then the writes waiting behind it begin theirs, and the next after it ends", async () => {
    const store = fakeStore();
    const gathering = new NodeWriteGathering<Write>(store.alone, store.together, { limitMs: Infinity, atOnce: 2, perTransaction: 8 });
    const heard = heardOf({ first: gathering.apply(write('c', 'first')), x1: gathering.apply(write('c', 'x1')) });
    await settle();
    expect(store.transactions.map((t) => t.names)).toEqual([['first']]);
    store.transactions[0]?.commit();
    await settle();
    // The second begins while the first commits; the first has not answered yet.
    expect(store.transactions.map((t) => t.names)).toEqual([['first'], ['x1']]);
    expect(heard).toEqual({ first: undefined, x1: undefined });
    // Sent again (a retried commit), it changes nothing: x2 waits for the customer's running transaction.
    store.transactions[0]?.commit();
    const x2 = heardOf({ x2: gathering.apply(write('c', 'x2')) });
    await settle();
    expect(store.transactions).toHaveLength(2);
    store.transactions[0]?.end();
    await settle();
    expect(store.transactions).toHaveLength(2);
    store.transactions[1]?.end();
    await settle();
    expect(store.transactions[2]?.names).toEqual(['x2']);
    store.transactions[2]?.end();
    await settle();
    expect({ ...heard, ...x2 }).toEqual({ first: 'ok', x1: 'ok', x2: 'ok' });
  });

  test('when all slots are taken, then writes wait, and go together per customer, up to the cap, the customers taking turns', async () => {
    const store = fakeStore();
    const gathering = new NodeWriteGathering<Write>(store.alone, store.together, { limitMs: Infinity, atOnce: 1, perTransaction: 2 });
    const calls = {
      first: gathering.apply(write('c1', 'first')),
      x1: gathering.apply(write('c1', 'x1')),
      y1: gathering.apply(write('c2', 'y1')),
      x2: gathering.apply(write('c1', 'x2')),
      x3: gathering.apply(write('c1', 'x3')),
    };
    const heard = heardOf(calls);
    await settle();
    expect(store.transactions.map((t) => t.names)).toEqual([['first']]);
    expect(heard.x1).toBeUndefined();
    store.transactions[0]?.end();
    await settle();
    expect(store.transactions.map((t) => t.names)).toEqual([['first'], ['x1', 'x2']]);
    expect(heard).toEqual({ first: 'ok', x1: undefined, y1: undefined, x2: undefined, x3: undefined });
    store.transactions[1]?.end();
    await settle();
    // c1 still waits with x3, but it is c2's turn.
    expect(store.transactions[2]?.names).toEqual(['y1']);
    expect(heard).toMatchObject({ x1: 'ok', x2: 'ok', x3: undefined, y1: undefined });
    store.transactions[2]?.end();
    await settle();
    expect(store.transactions[3]?.names).toEqual(['x3']);
    store.transactions[3]?.end();
    await settle();
    expect(heard).toEqual({ first: 'ok', x1: 'ok', y1: 'ok', x2: 'ok', x3: 'ok' });
  });

  /** One write alone, then a, b (refused) and d waiting behind it, one transaction at a time. */
  const oneAloneThenThreeWithARefusal = () => {
    const store = fakeStore();
    const gathering = new NodeWriteGathering<Write>(store.alone, store.together, { limitMs: Infinity, atOnce: 1, perTransaction: 8 });
    const heard = heardOf({
      first: gathering.apply(write('c', 'first')),
      a: gathering.apply(write('c', 'a')),
      b: gathering.apply(write('c', 'b', true)),
      d: gathering.apply(write('c', 'd')),
    });
    return { store, gathering, heard };
  };

  test('when a write among waiting ones is refused, then it alone hears its refusal, and the others commit', async () => {
    const { store, heard } = oneAloneThenThreeWithARefusal();
    await settle();
    store.transactions[0]?.end();
    // The batch refuses b: a runs again alone before it, then b first of its own, then d.
    for (let i = 1; i < 5; i += 1) {
      await settle();
      store.transactions[i]?.end();
    }
    await settle();
    expect(store.transactions.map((t) => t.names)).toEqual([['first'], ['a', 'b', 'd'], ['a'], ['b', 'd'], ['d']]);
    expect(heard).toEqual({ first: 'ok', a: 'ok', b: 'b exists', d: 'ok' });
  });

  test('when a shared transaction fails with an error that is no refusal, then its writes not yet committed hear that error', async () => {
    const { store, gathering, heard } = oneAloneThenThreeWithARefusal();
    await settle();
    store.transactions[0]?.end();
    await settle();
    store.transactions[1]?.end();
    await settle();
    // a, before the refused b, runs again and commits; then the store fails.
    store.transactions[2]?.end();
    await settle();
    store.transactions[3]?.end(new DomainError('store_unavailable', 'gone'));
    await settle();
    expect(heard).toEqual({ first: 'ok', a: 'ok', b: 'gone', d: 'gone' });
    // The slot is free again: the next write goes alone at once.
    void gathering.apply(write('c', 'next'));
    await settle();
    expect(store.transactions[4]?.names).toEqual(['next']);
    store.transactions[4]?.end();
  });
});
