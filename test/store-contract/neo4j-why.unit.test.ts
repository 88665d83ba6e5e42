// The exact `_why` search on Neo4j (whyInGraph past maxChains), without a server: statements answered by a fake
// Query over a two-node graph, to see which run and what a vertex deleted during the search does.
import { whyInGraph } from '../../src/store/neo4j/neo4j-why';
import type { Query } from '../../src/store/neo4j/query';
import type { StatementName } from '../../src/store/neo4j/statements';
import type { WhyQuery } from '../../src/domain/why';

const key = (id: string) => ({ key: { schemaId: 'member', key: { type: 'member_id', id } } });
const query: WhyQuery = { customerId: 'c', from: key('a'), to: key('b'), unlinkedTypes: [], maxNodes: 10, maxIds: 10 };

/** a and b share the cookie x; why.labels leaves out the cookie the first `gone` times it is asked. */
function fakeQuery(gone: number): { q: Query; ran: string[] } {
  const ran: string[] = [];
  const rows: Record<string, (params: Record<string, unknown>) => unknown[]> = {
    // One chain read: the statement answers it, or, when that is maxChains, the start nodes for the exact search.
    'why.shortest': (p) => {
      const exact = Number(p.maxChains) <= 1;
      const chain = [
        ['member', 'member_id', 'a'],
        ['cookie', 'x'],
        ['member', 'member_id', 'b'],
      ];
      return [
        {
          fromFound: true,
          toFound: true,
          fromCount: 1,
          toCount: 1,
          same: [],
          tooLarge: false,
          chain: exact ? null : chain,
          fromElements: exact ? ['A'] : [],
          toElements: exact ? ['B'] : [],
        },
      ];
    },
    'why.ids-of-nodes': (p) => (p.nodes as string[]).map((node) => ({ node, id: 'X', type: 'cookie' })),
    'why.nodes-of-ids': () => ['A', 'B'].map((node) => ({ id: 'X', node })),
    'why.labels': () => [
      {
        nodes: [
          { ref: 'A', schema: 'member', type: 'member_id', id: 'a' },
          { ref: 'B', schema: 'member', type: 'member_id', id: 'b' },
        ],
        ids: gone-- > 0 ? [] : [{ ref: 'X', type: 'cookie', id: 'x' }],
      },
    ],
  };
  const q = (async (name: StatementName, params: Record<string, unknown> = {}) => {
    ran.push(name);
    return (rows[name] as (params: Record<string, unknown>) => unknown[])(params);
  }) as Query;
  return { q, ran };
}

const chain = {
  nodes: [
    { schemaId: 'member', key: { type: 'member_id', id: 'a' } },
    { schemaId: 'member', key: { type: 'member_id', id: 'b' } },
  ],
  vias: [{ type: 'cookie', id: 'x' }],
};

describe('whyInGraph past maxChains', () => {
  test('when why.shortest reads maxChains chains, then the exact search runs from the start nodes it answered', async () => {
    const { q, ran } = fakeQuery(0);
    expect(await whyInGraph(q, query, 1)).toEqual({ chain });
    expect(ran).toEqual(['why.shortest', 'why.ids-of-nodes', 'why.nodes-of-ids', 'why.labels']);
  });

  test('when it reads fewer, then why.shortest alone answers', async () => {
    const { q, ran } = fakeQuery(0);
    expect(await whyInGraph(q, query, 2)).toEqual({ chain });
    expect(ran).toEqual(['why.shortest']);
  });

  test('when a vertex on the chains is deleted before why.labels, then the search runs again, and after 3 attempts store_unavailable', async () => {
    const once = fakeQuery(1);
    expect(await whyInGraph(once.q, query, 1)).toEqual({ chain });
    expect(once.ran.filter((name) => name === 'why.shortest')).toHaveLength(2);
    const always = fakeQuery(3);
    await expect(whyInGraph(always.q, query, 1)).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(always.ran.filter((name) => name === 'why.shortest')).toHaveLength(3);
  });
});
