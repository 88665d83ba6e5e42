// Search ONE from one node has a shorter way on SQLite (SqliteSearch.oneStepFrom: three statements instead of the
// traversal's five). It must answer exactly what the traversal answers, bounds and refusals included: random graphs,
// each searched both ways. A `links: false` type no node holds turns the short way off without changing the answer.
import fc from 'fast-check';
import type { SearchQuery } from '../../src/domain/model';
import { SqliteSearch } from '../../src/store/sqlite/sqlite-search';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { id, member, MEMBER, newCustomer } from './contract';
import { seeded } from '../helpers/seeded';

/** Nodes m0…m7, each holding a few of d0…d3, c0…c5 (device, cookie) and perhaps an email. */
const graphArb = fc.array(
  fc.record({
    devices: fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }),
    cookies: fc.uniqueArray(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
    email: fc.boolean(),
  }),
  { minLength: 1, maxLength: 8 },
);

const searchArb = fc.record({
  from: fc.nat(7),
  maxNodes: fc.integer({ min: 1, max: 10 }),
  maxIds: fc.integer({ min: 1, max: 40 }),
  limit: fc.integer({ min: 1, max: 12 }),
  hideEmail: fc.boolean(),
  having: fc.constantFrom(undefined, 'cookie', 'device', 'email'),
});

type Outcome = { answer: unknown } | { refused: unknown };

const outcomeOf = (store: SqliteStore, query: SearchQuery): Promise<Outcome> =>
  store.searchWithTypes(query).then(
    (answer) => ({ answer }),
    (e: { code?: string; message?: string }) => ({ refused: { code: e.code, message: e.message } }),
  );

describe('sqlite search ONE from one node', () => {
  const shortWay = jest.spyOn(SqliteSearch.prototype as unknown as { oneStepFrom: () => unknown }, 'oneStepFrom');
  afterAll(() => shortWay.mockRestore());

  test('when the graph, the bounds and the filters are random, then the short way answers and refuses as the traversal does', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    let answeredShort = 0;
    try {
      await fc.assert(
        fc.asyncProperty(graphArb, fc.array(searchArb, { minLength: 1, maxLength: 6 }), async (nodes, searches) => {
          const c = newCustomer();
          await store.putSchema(c, MEMBER);
          for (const [i, n] of nodes.entries()) {
            const held = [...n.devices.map((d) => id('device', `d${d}`)), ...n.cookies.map((k) => id('cookie', `c${k}`))];
            if (n.email) held.push(id('email', `m${i}@example.com`));
            await store.createNode(seeded(member(c, `m${i}`)), held);
          }
          for (const s of searches) {
            const query: SearchQuery = {
              customerId: c,
              key: { schemaId: 'member', key: id('member_id', `m${s.from % nodes.length}`) },
              step: 'ONE',
              exclude: false,
              ...(s.having ? { havingType: s.having } : {}),
              hiddenTypes: s.hideEmail ? ['email'] : [],
              unlinkedTypes: [],
              limit: s.limit,
              maxNodes: s.maxNodes,
              maxIds: s.maxIds,
            };
            shortWay.mockClear();
            const short = await outcomeOf(store, query);
            if (shortWay.mock.results.some((r) => r.value !== undefined)) answeredShort += 1;
            const traversed = await outcomeOf(store, { ...query, unlinkedTypes: ['never_held'] });
            expect(short).toEqual(traversed);
          }
        }),
        { numRuns: 150 },
      );
    } finally {
      await store.close();
    }
    // The property would hold trivially if the short way never answered.
    expect(answeredShort).toBeGreaterThan(100);
  });
});
