// The exact `_why` search on Neo4j (whyInGraph past maxChains), without a server: statements answered by a fake
// Query over a two-node graph, to see which run, what a vertex deleted during the search does, and that exact
// searches run one at a time.
import { whyInGraph } from '../../src/store/neo4j/neo4j-why';
import type { Query } from '../../src/store/neo4j/query';
import type { StatementName } from '../../src/store/neo4j/statements';
import type { WhyQuery } from '../../src/domain/why';

const key = (id: string) => ({ key: { schemaId: 'member', key: { type: 'member_id', id } } });
const query: WhyQuery = { customerId: 'c', from: key('a'), to: key('b'), unlinkedTypes: [], maxNodes: 10, maxIds: 10 };

/** The element ids of the fake graph and what they are: a and b share the cookie x. */
const NODES: Record<string, string> = { A: 'a', B: 'b' };
const HELD: Record<string, string[]> = { A: ['X'], B: ['X'] };

/**
 * a and b share the cookie x; why.labels leaves out the cookie the first `gone` times it is asked. The exact
 * search's statements name the vertices they were given by their places in the list, as the real ones do.
 */
function fakeQuery(gone: number, exactReads: Array<Promise<void>> = []): { q: Query; ran: string[] } {
  const ran: string[] = [];
  const rows: Record<string, (params: Record<string, unknown>) => Promise<unknown[]> | unknown[]> = {
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
    'why.ids-of-nodes': async (p) => {
      await exactReads.shift();
      const nodes = p.nodes as string[];
      const ids = [...new Set(nodes.flatMap((n) => HELD[n] ?? []))];
      return [{ ids, holders: ids.map((x) => nodes.flatMap((n, at) => ((HELD[n] ?? []).includes(x) ? [at] : []))) }];
    },
    'why.nodes-of-ids': (p) => {
      const ids = p.ids as string[];
      const nodes = Object.keys(HELD).filter((n) => ids.some((x) => HELD[n]?.includes(x)));
      return [{ nodes, held: nodes.map((n) => ids.flatMap((x, at) => (HELD[n]?.includes(x) ? [at] : []))) }];
    },
    'why.labels': (p) => {
      const nodes = p.nodes as string[];
      const ids = gone-- > 0 ? [] : (p.ids as string[]);
      return [
        {
          nodesAt: nodes.map((_, at) => at),
          schemas: nodes.map(() => 'member'),
          keyTypes: nodes.map(() => 'member_id'),
          keyIds: nodes.map((n) => NODES[n]),
          idsAt: ids.map((_, at) => at),
          types: ids.map(() => 'cookie'),
          values: ids.map(() => 'x'),
        },
      ];
    },
  };
  const q = (async (name: StatementName, params: Record<string, unknown> = {}) => {
    ran.push(name);
    return (rows[name] as (params: Record<string, unknown>) => unknown[])(params);
  }) as Query;
  return { q, ran };
}

/** `count` turns of the event loop: time for a search that should wait to go wrong. */
async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** Turns of the event loop until `condition` holds; fails past 10,000 (a search that never gets there). */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition(); turn += 1) {
    if (turn > 10_000) throw new Error('the condition never held');
    await turns(1);
  }
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

  test('when two exact searches are asked at once, then the second reads nothing until the first has answered', async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = fakeQuery(0, [held]);
    const second = fakeQuery(0);
    // A `_why` not asked before: both read their starts (why.shortest runs beside any exact search).
    const fresh: WhyQuery = { ...query, from: key('fresh') };
    const firstDone = whyInGraph(first.q, fresh, 1);
    const secondDone = whyInGraph(second.q, fresh, 1);
    await until(() => first.ran.includes('why.ids-of-nodes') && second.ran.includes('why.shortest'));
    await turns(10);
    expect(second.ran).toEqual(['why.shortest']);
    release();
    expect(await firstDone).toEqual({ chain });
    expect(await secondDone).toEqual({ chain });
    expect(second.ran).toEqual(['why.shortest', 'why.ids-of-nodes', 'why.nodes-of-ids', 'why.labels']);
  });

  test('when a _why needed the exact search, then asked again it waits for its turn before why.shortest, and is forgotten once it needs none', async () => {
    const remembered: WhyQuery = { ...query, from: key('remembered') };
    await whyInGraph(fakeQuery(0).q, remembered, 1);
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = fakeQuery(0, [held]);
    const waiting = fakeQuery(0);
    const holdingDone = whyInGraph(holding.q, remembered, 1);
    const waitingDone = whyInGraph(waiting.q, remembered, 1);
    await until(() => holding.ran.includes('why.ids-of-nodes'));
    await turns(10);
    expect(waiting.ran).toEqual([]);
    release();
    await holdingDone;
    expect(await waitingDone).toEqual({ chain });
    // Answered by why.shortest alone (more chains would be read than tie): forgotten, so the next goes on at once.
    await whyInGraph(fakeQuery(0).q, remembered, 2);
    let releaseAgain = (): void => undefined;
    const heldAgain = new Promise<void>((resolve) => (releaseAgain = resolve));
    const other = fakeQuery(0, [heldAgain]);
    const otherDone = whyInGraph(other.q, query, 1);
    await until(() => other.ran.includes('why.ids-of-nodes'));
    const notWaiting = fakeQuery(0);
    expect(await whyInGraph(notWaiting.q, remembered, 2)).toEqual({ chain });
    expect(notWaiting.ran).toEqual(['why.shortest']);
    releaseAgain();
    await otherDone;
  });
});
