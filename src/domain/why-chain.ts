// The exact `_why` search, the same on every store: a bidirectional breadth-first search over the bipartite graph
// of nodes and IDs, one level of the smaller side at a time, then the smallest of the shortest chains
// (compareChains) chosen from what it read, never enumerating them (equal chains multiply with every hop two nodes
// share several IDs on). A generator: it yields what it needs read and takes the rows back, so SQLite drives it
// synchronously and Neo4j with await (runWhySearch, runWhySearchAsync).
import { byTypeThenId } from './code-point-order';
import { DomainError } from './errors';
import type { IdPair } from './model';
import { tooManyIdsToRead } from './store';
import { compareNodes, WHY_SEARCH_HOPS, type Chain, type ChainNode, type WhyQuery } from './why';

/**
 * A vertex as its store names it, a number or a string, each node's and each ID's different. A search starts from
 * nodes and steps between nodes and IDs, so a vertex an even number of steps from its side's start is a node.
 */
export type WhyVertex = string | number;

/** What the search reads from its store. */
export interface WhyGraph<V extends WhyVertex = WhyVertex> {
  /** The IDs each node holds: [node, id, id type]. */
  idsOfNodes(nodes: V[]): Array<[V, V, string]>;
  /** The holders of each ID: [id, node]. */
  nodesOfIds(ids: V[]): Array<[V, V]>;
  /** The values of IDs and the keys of nodes. */
  labels(nodes: V[], ids: V[]): { nodes: Array<[V, ChainNode]>; ids: Array<[V, IdPair]> };
}

export type AsyncWhyGraph<V extends WhyVertex = WhyVertex> = {
  [K in keyof WhyGraph<V>]: (...args: Parameters<WhyGraph<V>[K]>) => Promise<ReturnType<WhyGraph<V>[K]>>;
};

type Read<V extends WhyVertex> = { [K in keyof WhyGraph<V>]: { read: K; args: Parameters<WhyGraph<V>[K]> } }[keyof WhyGraph<V>];
type Search<V extends WhyVertex> = Generator<Read<V>, Chain | undefined, unknown>;

function* read<V extends WhyVertex, K extends keyof WhyGraph<V>>(
  name: K,
  ...args: Parameters<WhyGraph<V>[K]>
): Generator<Read<V>, ReturnType<WhyGraph<V>[K]>, unknown> {
  return (yield { read: name, args } as Read<V>) as ReturnType<WhyGraph<V>[K]>;
}

/** The search driven by a store that reads synchronously. */
export function runWhySearch<V extends WhyVertex>(graph: WhyGraph<V>, from: V[], to: V[], query: WhyQuery): Chain | undefined {
  const search = whySearch(from, to, query);
  let step = search.next();
  while (!step.done) step = search.next(answer(graph, step.value));
  return step.value;
}

/** The search driven by a store that reads asynchronously. */
export async function runWhySearchAsync<V extends WhyVertex>(graph: AsyncWhyGraph<V>, from: V[], to: V[], query: WhyQuery): Promise<Chain | undefined> {
  const search = whySearch(from, to, query);
  let step = search.next();
  while (!step.done) step = search.next(await answer(graph, step.value));
  return step.value;
}

function answer<V extends WhyVertex>(graph: WhyGraph<V> | AsyncWhyGraph<V>, r: Read<V>): unknown {
  switch (r.read) {
    case 'idsOfNodes':
      return graph.idsOfNodes(...r.args);
    case 'nodesOfIds':
      return graph.nodesOfIds(...r.args);
    case 'labels':
      return graph.labels(...r.args);
  }
}

interface Side<V> {
  dist: Map<V, number>;
  frontier: V[];
  level: number;
}

/**
 * From the start nodes of both sides (each at least one): the smallest shortest chain within WHY_SEARCH_HOPS, or
 * undefined. Past query.maxNodes nodes or query.maxIds IDs read, component_too_large.
 */
function* whySearch<V extends WhyVertex>(from: V[], to: V[], query: WhyQuery): Search<V> {
  const tooManyNodes = () => new DomainError('component_too_large', `The search would visit more than ${query.maxNodes} nodes; narrow it (another start).`);
  const sides = [from, to].map((vertices): Side<V> => ({ dist: new Map(vertices.map((v) => [v, 0])), frontier: vertices, level: 0 }));
  const [forward, backward] = sides as [Side<V>, Side<V>];
  const adjacent = new Map<V, Set<V>>();
  const linkOne = (x: V, y: V) => {
    const set = adjacent.get(x);
    if (set) set.add(y);
    else adjacent.set(x, new Set([y]));
  };
  const link = (a: V, b: V) => {
    linkOne(a, b);
    linkOne(b, a);
  };
  const nodesSeen = new Set([...from, ...to]);
  const idsSeen = new Set<V>();
  if (nodesSeen.size > query.maxNodes) throw tooManyNodes();
  const unlinked = new Set(query.unlinkedTypes);

  let distance = [...forward.dist.keys()].some((v) => backward.dist.has(v)) ? 0 : -1;
  while (distance < 0 && forward.level + backward.level < 2 * WHY_SEARCH_HOPS) {
    if (forward.frontier.length === 0 || backward.frontier.length === 0) break;
    const side = forward.frontier.length <= backward.frontier.length ? forward : backward;
    const other = side === forward ? backward : forward;
    const next: V[] = [];
    const reach = (a: V, b: V) => {
      link(a, b);
      if (side.dist.has(b)) return;
      side.dist.set(b, side.level + 1);
      next.push(b);
    };
    if (side.level % 2 === 0) {
      for (const [node, id, type] of yield* read('idsOfNodes', side.frontier)) {
        if (unlinked.has(type)) continue;
        idsSeen.add(id);
        reach(node, id);
      }
      if (idsSeen.size > query.maxIds) throw tooManyIdsToRead(query.maxIds);
    } else {
      for (const [id, node] of yield* read('nodesOfIds', side.frontier)) {
        nodesSeen.add(node);
        reach(id, node);
      }
      if (nodesSeen.size > query.maxNodes) throw tooManyNodes();
    }
    side.level += 1;
    side.frontier = next;
    // Every vertex first reached now is side.level away from its side; the nearest of those the other side has
    // reached gives the distance (none of an earlier level met it: the search would have stopped then).
    for (const v of next) {
      const there = other.dist.get(v);
      if (there !== undefined && (distance < 0 || side.level + there < distance)) distance = side.level + there;
    }
  }
  if (distance < 0) return undefined;
  const on = onShortestChains(distance, forward.dist, backward.dist, adjacent);
  // Position i of a chain is i steps from its `from` end: nodes at even positions, IDs at odd ones.
  const at = (parity: number) => [...new Set(on.filter((_, i) => i % 2 === parity).flatMap((set) => [...set]))];
  const labels = yield* read<V, 'labels'>('labels', at(0), at(1));
  return smallestChain(on, adjacent, new Map(labels.nodes), new Map(labels.ids));
}

/**
 * The vertices on a shortest chain of `distance` steps at each position (position i: i from the `from` side and
 * distance - i from the `to` side), found back from where the two searches met.
 */
function onShortestChains<V>(distance: number, fromDist: Map<V, number>, toDist: Map<V, number>, adjacent: Map<V, Set<V>>): Array<Set<V>> {
  const on: Array<Set<V>> = Array.from({ length: distance + 1 }, () => new Set<V>());
  // Where the two searches met: vertices both reached, on a shortest chain.
  for (const [v, a] of fromDist) {
    const b = toDist.get(v);
    if (b !== undefined && a + b === distance) on[a]?.add(v);
  }
  const met = on.findIndex((set) => set.size > 0);
  for (let i = met; i > 0; i--) {
    for (const v of on[i] as Set<V>) for (const u of adjacent.get(v) ?? []) if (fromDist.get(u) === i - 1) on[i - 1]?.add(u);
  }
  const last = on.length - 1 - [...on].reverse().findIndex((set) => set.size > 0);
  for (let i = last; i < distance; i++) {
    for (const v of on[i] as Set<V>) for (const u of adjacent.get(v) ?? []) if (toDist.get(u) === distance - i - 1) on[i + 1]?.add(u);
  }
  return on;
}

/**
 * The smallest shortest chain through the layers `on`: the smallest via at each odd position among those next to
 * the nodes still possible, then at each node position the smallest node holding both vias beside it.
 */
function smallestChain<V>(on: Array<Set<V>>, adjacent: Map<V, Set<V>>, nodes: Map<V, ChainNode>, ids: Map<V, IdPair>): Chain {
  const distance = on.length - 1;
  const near = (v: V, u: V) => adjacent.get(v)?.has(u) ?? false;
  const viaVertices: V[] = [];
  let possible = [...(on[0] as Set<V>)];
  for (let i = 1; i < distance; i += 2) {
    const options = [...(on[i] as Set<V>)].filter((v) => possible.some((n) => near(v, n)));
    const via = options.sort((a, b) => byTypeThenId(ids.get(a) as IdPair, ids.get(b) as IdPair))[0] as V;
    viaVertices.push(via);
    possible = [...(on[i + 1] as Set<V>)].filter((n) => near(via, n));
  }
  const chainNodes: ChainNode[] = [];
  for (let i = 0; i <= distance; i += 2) {
    const before = viaVertices[i / 2 - 1];
    const after = viaVertices[i / 2];
    const options = [...(on[i] as Set<V>)].filter((n) => (before === undefined || near(before, n)) && (after === undefined || near(after, n)));
    chainNodes.push(options.map((n) => nodes.get(n) as ChainNode).sort(compareNodes)[0] as ChainNode);
  }
  return { nodes: chainNodes, vias: viaVertices.map((v) => ids.get(v) as IdPair) };
}
