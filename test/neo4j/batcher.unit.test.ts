// The queue of src/store/neo4j/batcher.ts with fake statements whose end the test decides: which asks go at once,
// which wait and go together, in which batch, with what time left, and what each caller hears. Its uses are checked
// by their own unit tests (write-gathering, gathered-impressions) and, with the real statements, by the Neo4j
// suites (round-trips, write-gathering).
import { Batcher, type BatcherOptions, type Turn } from '../../src/store/neo4j/batcher';
import { heardOf, settle } from '../helpers/settling';

/** An ask named by `name`; `p` its partition, `k` its key, `d` its distinct value, `lane` its lane. */
interface Ask {
  name: string;
  p?: string;
  k?: string;
  d?: string;
  lane?: string;
}

interface Started {
  kind: 'alone' | 'together';
  names: string[];
  turn: Turn<string>;
  /** Ends the statement: each ask answered with its name upper-cased, or the statement failing with `error`. */
  end: (error?: Error) => void;
}

/** A batcher whose statements end when the test says. */
function fakeBatcher(options: Partial<BatcherOptions<Ask, string>> & { withAlone?: boolean } = {}) {
  const started: Started[] = [];
  const statement = (kind: Started['kind'], asks: Ask[], turn: Turn<string>) =>
    new Promise<Array<PromiseSettledResult<string>>>((resolve, reject) =>
      started.push({
        kind,
        names: asks.map((a) => a.name),
        turn,
        end: (error) => (error ? reject(error) : resolve(asks.map((a) => ({ status: 'fulfilled', value: a.name.toUpperCase() })))),
      }),
    );
  const batcher = new Batcher<Ask, string>({
    alone:
      options.withAlone === false
        ? undefined
        : async (ask, turn) => {
            const [answer] = await statement('alone', [ask], turn);
            if (answer?.status !== 'fulfilled') throw new Error('no answer');
            return answer.value;
          },
    together: (asks, turn) => statement('together', asks, turn),
    partition: (ask) => ask.p ?? '',
    slots: 1,
    perBatch: 8,
    ...options,
  });
  const asked = (...asks: Ask[]) => heardOf(Object.fromEntries(asks.map((ask) => [ask.name, batcher.ask(ask)])));
  return { batcher, started, asked, shape: () => started.map((s) => `${s.kind} ${s.names.join(',')}`) };
}

describe('a batcher', () => {
  test('when an ask finds a slot free, then it goes at once, alone; without `alone`, as a batch of one', async () => {
    const { started, asked, shape } = fakeBatcher({ slots: 2 });
    const heard = asked({ name: 'a' }, { name: 'b' });
    await settle();
    expect(shape()).toEqual(['alone a', 'alone b']);
    started.forEach((s) => s.end());
    await settle();
    expect(heard).toEqual({ a: 'ok', b: 'ok' });

    const batchOfOne = fakeBatcher({ withAlone: false });
    const one = batchOfOne.asked({ name: 'c' });
    await settle();
    expect(batchOfOne.shape()).toEqual(['together c']);
    batchOfOne.started[0]?.end();
    await settle();
    expect(one).toEqual({ c: 'ok' });
  });

  test('when the slots are taken, then asks wait and go together in arrival order, at most perBatch a batch, each hearing its own answer', async () => {
    const { batcher, started, asked, shape } = fakeBatcher({ perBatch: 2 });
    const heard = asked({ name: 'first' }, { name: 'a' }, { name: 'b' }, { name: 'c' });
    await settle();
    expect(shape()).toEqual(['alone first']);
    expect(heard).toEqual({ first: undefined, a: undefined, b: undefined, c: undefined });
    started[0]?.end();
    await settle();
    expect(shape()).toEqual(['alone first', 'together a,b']);
    started[1]?.end();
    await settle();
    expect(shape()).toEqual(['alone first', 'together a,b', 'together c']);
    started[2]?.end();
    await settle();
    expect(heard).toEqual({ first: 'ok', a: 'ok', b: 'ok', c: 'ok' });
    // Nothing waits: the next goes at once again.
    void batcher.ask({ name: 'next' });
    expect(shape().at(-1)).toBe('alone next');
  });

  test('when waiting asks have the same key, then they take one place in the batch and hear its one answer', async () => {
    const { batcher, started, shape } = fakeBatcher({ key: (ask) => ask.k ?? ask.name });
    void batcher.ask({ name: 'first' });
    const answers = [batcher.ask({ name: 'x', k: 'same' }), batcher.ask({ name: 'y', k: 'same' }), batcher.ask({ name: 'z' })];
    await settle();
    started[0]?.end();
    await settle();
    expect(shape()).toEqual(['alone first', 'together x,z']);
    started[1]?.end();
    await expect(Promise.all(answers)).resolves.toEqual(['X', 'X', 'Z']);
  });

  test('when waiting asks share a distinct value, then a batch carries one of them, and the next the other', async () => {
    const { started, asked, shape } = fakeBatcher({ distinct: (ask) => ask.d ?? ask.name });
    const heard = asked({ name: 'first' }, { name: 'a1', d: 'one' }, { name: 'b' }, { name: 'a2', d: 'one' }, { name: 'c' });
    await settle();
    started[0]?.end();
    await settle();
    expect(shape()).toEqual(['alone first', 'together a1,b,c']);
    started[1]?.end();
    await settle();
    expect(shape().at(-1)).toEqual('together a2');
    started[2]?.end();
    await settle();
    expect(Object.values(heard)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
  });

  test('when asks of several partitions wait, then each batch is of one partition, the one whose first ask came first', async () => {
    const { started, asked, shape } = fakeBatcher();
    asked({ name: 'first' }, { name: 'p1', p: 'P' }, { name: 'q1', p: 'Q' }, { name: 'p2', p: 'P' }, { name: 'q2', p: 'Q' }, { name: 'r1', p: 'R' });
    await settle();
    for (let i = 0; i < 4; i += 1) {
      started[i]?.end();
      await settle();
    }
    expect(shape()).toEqual(['alone first', 'together p1,p2', 'together q1,q2', 'together r1']);
  });

  test('when a lane has its slots taken, then asks of another lane still go at once; slots can depend on what other lanes do', async () => {
    const slots = jest.fn((lane: string, active: (lane: string) => boolean) => (lane === 'slow' && active('fast') ? 1 : 2));
    const { started, batcher, shape } = fakeBatcher({ lane: (ask) => ask.lane ?? '', partition: (ask) => ask.lane ?? '', slots });
    void batcher.ask({ name: 's1', lane: 'slow' });
    void batcher.ask({ name: 's2', lane: 'slow' });
    void batcher.ask({ name: 'f1', lane: 'fast' });
    // The fast lane is active now: the slow lane has one slot, which s1 and s2 hold.
    void batcher.ask({ name: 's3', lane: 'slow' });
    await settle();
    expect(shape()).toEqual(['alone s1', 'alone s2', 'alone f1']);
    started[0]?.end();
    await settle();
    expect(shape()).toHaveLength(3);
    started[2]?.end();
    started[1]?.end();
    await settle();
    expect(shape().at(-1)).toBe('together s3');
  });

  test('when partitions run one at a time, then an ask of a busy partition waits though a slot is free, and goes once its batch releases it', async () => {
    const { started, asked, shape } = fakeBatcher({ slots: 3, onePerPartition: true });
    const heard = asked({ name: 'c1', p: 'c' }, { name: 'c2', p: 'c' }, { name: 'd1', p: 'd' }, { name: 'c3', p: 'c' });
    await settle();
    expect(shape()).toEqual(['alone c1', 'alone d1']);
    // A slot is free, but not for c while c1 runs. c1's transaction sends its COMMIT (twice: a retried commit): c's
    // next batch begins beside it, which still holds its slot.
    expect(shape()).toHaveLength(2);
    started[0]?.turn.release();
    started[0]?.turn.release();
    await settle();
    expect(shape()).toEqual(['alone c1', 'alone d1', 'together c2,c3']);
    started.forEach((s) => s.end());
    await settle();
    expect(heard).toEqual({ c1: 'ok', c2: 'ok', d1: 'ok', c3: 'ok' });
  });

  describe('with a time limit', () => {
    beforeEach(() => jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());

    test('when asks waited, then their batch has what its longest-waiting one has left; a batch waited past the limit is refused unrun', async () => {
      const { started, batcher, shape } = fakeBatcher({ limitMs: 60_000 });
      void batcher.ask({ name: 'first' });
      const early = batcher.ask({ name: 'early' });
      jest.setSystemTime(1_010_000);
      const late = batcher.ask({ name: 'late' });
      jest.setSystemTime(1_025_000);
      await settle();
      expect(started[0]?.turn.limitMs).toBe(60_000);
      started[0]?.end();
      await settle();
      expect(shape()).toEqual(['alone first', 'together early,late']);
      expect(started[1]?.turn.limitMs).toBe(35_000);
      started[1]?.end();
      await expect(Promise.all([early, late])).resolves.toEqual(['EARLY', 'LATE']);

      void batcher.ask({ name: 'slow' });
      const refused = batcher.ask({ name: 'refused' });
      jest.setSystemTime(1_085_000);
      started[2]?.end();
      await expect(refused).rejects.toMatchObject({ code: 'store_unavailable', message: 'Neo4j did not answer within 60 s.' });
      expect(shape()).toHaveLength(3);
    });
  });

  test('when a batch answers some asks early and then fails, then those keep their answers and the others hear the error', async () => {
    const { started, asked } = fakeBatcher();
    const heard = asked({ name: 'first' }, { name: 'a' }, { name: 'b' });
    await settle();
    started[0]?.end();
    await settle();
    started[1]?.turn.answer(0, { status: 'fulfilled', value: 'A early' });
    await settle();
    expect(heard).toEqual({ first: 'ok', a: 'ok', b: undefined });
    started[1]?.end(new Error('Neo4j is gone'));
    await settle();
    expect(heard).toEqual({ first: 'ok', a: 'ok', b: 'Neo4j is gone' });
  });

  test('when a batch answers no outcome for an ask, then that ask fails rather than waiting for ever', async () => {
    let release!: () => void;
    const batcher = new Batcher<string, string>({
      alone: (ask) => new Promise((resolve) => (release = () => resolve(ask))),
      // One answer short: the last ask gets none.
      together: (asks) => Promise.resolve(asks.slice(1).map((value) => ({ status: 'fulfilled', value }))),
      slots: 1,
      perBatch: 8,
    });
    const held = batcher.ask('held');
    const heard = heardOf({ a: batcher.ask('a'), b: batcher.ask('b') });
    release();
    await expect(held).resolves.toBe('held');
    await settle();
    expect(heard).toEqual({ a: 'ok', b: 'The batch answered nothing for this ask.' });
  });

  test('when a statement throws before it returns a promise, then its ask hears the error and the slot is free again', async () => {
    const batcher = new Batcher<string, string>({
      alone: (ask) => {
        if (ask === 'broken') throw new Error('cannot start');
        return Promise.resolve(ask);
      },
      together: () => Promise.reject(new Error('not used')),
      slots: 1,
      perBatch: 8,
    });
    await expect(batcher.ask('broken')).rejects.toThrow('cannot start');
    await expect(batcher.ask('fine')).resolves.toBe('fine');
  });

  test("when a batch ends, then its slot is free before its callers hear, so that a caller's next ask goes at once", async () => {
    const { started, batcher, shape } = fakeBatcher();
    void batcher.ask({ name: 'first' });
    const next = batcher.ask({ name: 'waited' }).then(() => batcher.ask({ name: 'then' }));
    await settle();
    started[0]?.end();
    await settle();
    started[1]?.end();
    await settle();
    expect(shape()).toEqual(['alone first', 'together waited', 'alone then']);
    started[2]?.end();
    await expect(next).resolves.toBe('THEN');
  });
});
