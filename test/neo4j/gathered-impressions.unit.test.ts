// The queueing of src/store/neo4j/gathered-impressions.ts with fake statements whose end the test decides: which
// impressions go alone, which wait and go together, and what each caller hears. The real store's shared statements
// are checked by impression-gathering.neo4j.test.ts and the showing contract's races.
import { assembleDelivery, type ImpressionOutcome, type ImpressionRequest, ZERO_COUNTS } from '../../src/domain/deliveries';
import { deliveryDocument } from '../../src/store/delivery-document';
import { buildDraft } from '../helpers/deliveries';
import { DomainError } from '../../src/domain/errors';
import { ImpressionGathering, type ImpressionWriter } from '../../src/store/neo4j/gathered-impressions';
import { recordAllInGraph, type WrittenImpression } from '../../src/store/neo4j/neo4j-impressions';
import type { Query } from '../../src/store/neo4j/query';
import { heardOf, settle } from '../helpers/settling';

/** An impression named by its ID's value. */
const impression = (deliveryId: number, name: string, options: { customerId?: string; maxNodes?: number } = {}): ImpressionRequest => ({
  person: { customerId: options.customerId ?? 'c', user: { type: 'device', id: name }, unlinkedTypes: [], maxNodes: options.maxNodes ?? 10, maxIds: 10 },
  deliveryId,
  platform: 'ios',
  day: '2026-06-01',
  receivedAt: '2026-06-01T00:00:00.000Z',
});

const counted = (r: ImpressionRequest): ImpressionOutcome => ({
  answer: { deliveryId: r.deliveryId, deliveryCount: 1, personTotal: 1, personToday: 1 },
  replayed: false,
});

/** Statements that end when the test says (with an error, to fail); an impression of ID value `refused` is refused. */
function fakeWriter(options: { limits?: number[] } = {}) {
  const statements: Array<{ names: string[]; writeIds: string[]; end: (error?: Error) => void }> = [];
  const q = (() => Promise.resolve([])) as Query;
  const started = (impressions: WrittenImpression[]) =>
    new Promise<void>((resolve, reject) =>
      statements.push({
        names: impressions.map((i) => i.request.person.user.id),
        writeIds: impressions.map((i) => i.writeId),
        end: (error) => (error ? reject(error) : resolve()),
      }),
    );
  const outcome = (i: WrittenImpression): ImpressionOutcome => {
    if (i.request.person.user.id === 'refused') throw new DomainError('delivery_not_found', `no delivery ${i.request.deliveryId}`);
    return counted(i.request);
  };
  const writer: ImpressionWriter = {
    writeAlone: (work, limitMs) => {
      options.limits?.push(limitMs);
      return work(q);
    },
    alone: async (_q, i) => {
      await started([i]);
      return outcome(i);
    },
    together: async (_q, impressions) => {
      await started(impressions);
      return impressions.map((i): PromiseSettledResult<ImpressionOutcome> => {
        try {
          return { status: 'fulfilled', value: outcome(i) };
        } catch (e) {
          return { status: 'rejected', reason: e };
        }
      });
    },
  };
  return { statements, writer };
}

describe('gathering of impressions', () => {
  test('when fewer than atOnce statements run, then an impression goes alone at once', async () => {
    const { statements, writer } = fakeWriter();
    const gathering = new ImpressionGathering(writer, { limitMs: Infinity, atOnce: 2, perStatement: 8 });
    const heard = heardOf({ a: gathering.record(impression(1, 'a')), b: gathering.record(impression(1, 'b')) });
    await settle();
    expect(statements.map((s) => s.names)).toEqual([['a'], ['b']]);
    statements.forEach((s) => s.end());
    await settle();
    expect(heard).toEqual({ a: 'ok', b: 'ok' });
  });

  test('when all slots are taken, then impressions wait, and go together in arrival order, one of each delivery and bounds a statement, up to the cap', async () => {
    const { statements, writer } = fakeWriter();
    const gathering = new ImpressionGathering(writer, { limitMs: Infinity, atOnce: 1, perStatement: 3 });
    const heard = heardOf({
      first: gathering.record(impression(1, 'first')),
      x1: gathering.record(impression(1, 'x1')),
      y2: gathering.record(impression(2, 'y2')),
      // Another delivery of the same number, of another customer.
      z2: gathering.record(impression(2, 'z2', { customerId: 'other' })),
      x1again: gathering.record(impression(1, 'x1again')),
      wide: gathering.record(impression(3, 'wide', { maxNodes: 99 })),
      w4: gathering.record(impression(4, 'w4')),
    });
    await settle();
    expect(statements.map((s) => s.names)).toEqual([['first']]);
    statements[0]?.end();
    await settle();
    expect(statements.map((s) => s.names)).toEqual([['first'], ['x1', 'y2', 'z2']]);
    expect(heard).toMatchObject({ first: 'ok', x1: undefined });
    statements[1]?.end();
    await settle();
    // x1again waited for x1's statement; `wide` has other bounds.
    expect(statements[2]?.names).toEqual(['x1again', 'w4']);
    statements[2]?.end();
    await settle();
    expect(statements[3]?.names).toEqual(['wide']);
    statements[3]?.end();
    await settle();
    expect(Object.values(heard)).toEqual(Array.from({ length: 7 }, () => 'ok'));
    // Each impression has a write id of its own, kept from its arrival.
    expect(new Set(statements.flatMap((s) => s.writeIds)).size).toBe(7);
  });

  test('when one impression of a shared statement is refused, then its caller alone hears the refusal; when the statement fails, then all of its callers hear it', async () => {
    const { statements, writer } = fakeWriter();
    const gathering = new ImpressionGathering(writer, { limitMs: Infinity, atOnce: 1, perStatement: 8 });
    const heard = heardOf({
      first: gathering.record(impression(1, 'first')),
      a: gathering.record(impression(2, 'a')),
      refused: gathering.record(impression(3, 'refused')),
      b: gathering.record(impression(4, 'b')),
    });
    await settle();
    statements[0]?.end();
    await settle();
    expect(statements[1]?.names).toEqual(['a', 'refused', 'b']);
    statements[1]?.end();
    await settle();
    expect(heard).toEqual({ first: 'ok', a: 'ok', refused: 'no delivery 3', b: 'ok' });

    const failing = heardOf({ c: gathering.record(impression(1, 'c')), d: gathering.record(impression(2, 'd')), e: gathering.record(impression(3, 'e')) });
    await settle();
    statements[2]?.end();
    await settle();
    expect(statements[3]?.names).toEqual(['d', 'e']);
    statements[3]?.end(new DomainError('store_unavailable', 'Neo4j is gone'));
    await settle();
    expect(failing).toEqual({ c: 'ok', d: 'Neo4j is gone', e: 'Neo4j is gone' });
  });

  test('when impressions waited, then their statement has the time left of the longest-waiting; one that waited past the limit is refused unrun', async () => {
    const limits: number[] = [];
    const { statements, writer } = fakeWriter({ limits });
    const gathering = new ImpressionGathering(writer, { limitMs: 60_000, atOnce: 1, perStatement: 8 });
    const heard = heardOf({ first: gathering.record(impression(1, 'first')), waiting: gathering.record(impression(2, 'waiting')) });
    await settle();
    statements[0]?.end();
    await settle();
    expect(limits[0]).toBe(60_000);
    expect(limits[1]).toBeLessThanOrEqual(60_000);
    expect(limits[1]).toBeGreaterThan(0);
    statements[1]?.end();
    await settle();
    expect(heard).toEqual({ first: 'ok', waiting: 'ok' });

    const late = new ImpressionGathering(writer, { limitMs: 0, atOnce: 1, perStatement: 8 });
    const lateHeard = heardOf({ first: late.record(impression(1, 'first')), waiting: late.record(impression(2, 'waiting')) });
    await settle();
    statements[2]?.end();
    await settle();
    expect(statements).toHaveLength(3);
    expect(lateHeard).toEqual({ first: 'ok', waiting: 'Neo4j did not answer within 0 s.' });
  });
});

describe('impressions of one shared statement (recordAllInGraph)', () => {
  /** A Query whose impression.count answers `outcomes` in turn, one a run (for every impression of the run); keep-caps as `keepCaps` says. */
  function fakeQuery(outcomes: string[][], keepCaps: () => Promise<void> = () => Promise.resolve()) {
    const names: string[] = [];
    const q = (async (name: string, params: Record<string, unknown> = {}) => {
      names.push(name);
      if (name === 'delivery.keep-caps') {
        await keepCaps();
        return [];
      }
      const run = outcomes.shift() ?? [];
      return (params.impressions as Array<{ index: { toNumber(): number } }>).map((i, n) => ({
        index: i.index.toNumber(),
        outcome: run[n],
        answerCounts: [1, 1, 1],
        answer: null,
        document: DOCUMENT,
        deliveryCount: 0,
        iphoneCount: 0,
        androidCount: 0,
        total: 0,
        today: 0,
      }));
    }) as Query;
    return { q, names };
  }
  const DOCUMENT = deliveryDocument(assembleDelivery(buildDraft(), { deliveryId: 1, conditionId: 10, messageIds: [100], counts: ZERO_COUNTS }));
  const written = (deliveryId: number) => ({ request: impression(deliveryId, `u${deliveryId}`), writeId: `w${deliveryId}` });

  test("when an impression's delivery lacks its caps, then it runs again alone once they are copied, and a refusal then is its own", async () => {
    const keepCaps = jest.fn(() => Promise.resolve());
    const { q, names } = fakeQuery([['counted', 'caps_unknown', 'caps_unknown'], ['counted'], ['delivery_not_found']], keepCaps);
    const settled = await recordAllInGraph(q, [written(1), written(2), written(3)]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value.answer.deliveryId : (s.reason as DomainError).code))).toEqual([1, 2, 'delivery_not_found']);
    expect(names).toEqual(['impression.count', 'delivery.keep-caps', 'impression.count', 'delivery.keep-caps', 'impression.count']);
  });

  test('when copying the caps fails otherwise than by a refusal, then the call fails, to be run again whole', async () => {
    const { q } = fakeQuery([['counted', 'caps_unknown']], () => Promise.reject(new Error('connection lost')));
    await expect(recordAllInGraph(q, [written(1), written(2)])).rejects.toThrow('connection lost');
  });
});
