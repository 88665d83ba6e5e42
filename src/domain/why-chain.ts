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

/** A vertex as its store names it: a node's name starts with 'n', an ID's with 'i'. */
export type WhyVertex = string;

/** What the search reads from its store. */
export interface WhyGraph {
  /** The IDs each node holds: [node, id, id type]. */
  idsOfNodes(nodes: WhyVertex[]): Array<[WhyVertex, WhyVertex, string]>;
  /** The holders of each ID: [id, node]. */
  nodesOfIds(ids: WhyVertex[]): Array<[WhyVertex, WhyVertex]>;
  /** The values of IDs and the keys of nodes. */
  labels(nodes: WhyVertex[], ids: WhyVertex[]): { nodes: Array<[WhyVertex, ChainNode]>; ids: Array<[WhyVertex, IdPair]> };
}

export type AsyncWhyGraph = { [K in keyof WhyGraph]: (...args: Parameters<WhyGraph[K]>) => Promise<ReturnType<WhyGraph[K]>> };

type Read = { [K in keyof WhyGraph]: { read: K; args: Parameters<WhyGraph[K]> } }[keyof WhyGraph];
type Search = Generator<Read, Chain | undefined, unknown>;

function* read<K extends keyof WhyGraph>(name: K, ...args: Parameters<WhyGraph[K]>): Generator<Read, ReturnType<WhyGraph[K]>, unknown> {
  return (yield { read: name, args } as Read) as ReturnType<WhyGraph[K]>;
}

/** The search driven by a store that reads synchronously. */
export function runWhySearch(graph: WhyGraph, from: WhyVertex[], to: WhyVertex[], query: WhyQuery): Chain | undefined {
  const search = whySearch(from, to, query);
  let step = search.next();
  while (!step.done) step = search.next(answer(graph, step.value));
  return step.value;
}

/** The search driven by a store that reads asynchronously. */
export async function runWhySearchAsync(graph: AsyncWhyGraph, from: WhyVertex[], to: WhyVertex[], query: WhyQuery): Promise<Chain | undefined> {
  const search = whySearch(from, to, query);
  let step = search.next();
  while (!step.done) step = search.next(await answer(graph, step.value));
  return step.value;
}

function answer<G extends WhyGraph | AsyncWhyGraph>(graph: G, r: Read): unknown {
  switch (r.read) {
    case 'idsOfNodes':
      return graph.idsOfNodes(...r.args);
    case 'nodesOfIds':
      return graph.nodesOfIds(...r.args);
    case 'labels':
      return graph.labels(...r.args);
  }
}

interface Side {
  dist: Map<WhyVertex, number>;
  frontier: WhyVertex[];
  level: number;
}

/**
 * From the start nodes of both sides (each at least one): the smallest shortest chain within WHY_SEARCH_HOPS, or
 * undefined. Past query.maxNodes nodes or query.maxIds IDs read, component_too_large.
 */
function* whySearch(from: WhyVertex[], to: WhyVertex[], query: WhyQuery): Search {
  const tooManyNodes = () => new DomainError('component_too_large', `The search would visit more than ${query.maxNodes} nodes; narrow it (another start).`);
  const sides = [from, to].map((vertices): Side => ({ dist: new Map(vertices.map((v) => [v, 0])), frontier: vertices, level: 0 }));
  const [forward, backward] = sides as [Side, Side];
  const adjacent = new Map<WhyVertex, Set<WhyVertex>>();
  const link = (a: WhyVertex, b: WhyVertex) => {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      const set = adjacent.get(x) ?? new Set<WhyVertex>();
      set.add(y);
      adjacent.set(x, set);
    }
  };
  const nodesSeen = new Set([...from, ...to]);
  const idsSeen = new Set<WhyVertex>();
  if (nodesSeen.size > query.maxNodes) throw tooManyNodes();
  const unlinked = new Set(query.unlinkedTypes);

  let distance = [...forward.dist.keys()].some((v) => backward.dist.has(v)) ? 0 : -1;
  while (distance < 0 && forward.level + backward.level < 2 * WHY_SEARCH_HOPS) {
    if (forward.frontier.length === 0 || backward.frontier.length === 0) break;
    const side = forward.frontier.length <= backward.frontier.length ? forward : backward;
    const other = side === forward ? backward : forward;
    const next: WhyVertex[] = [];
    const reach = (a: WhyVertex, b: WhyVertex) => {
      link(a, b);
      if (side.dist.has(b)) return;
      side.dist.set(b, side.level + 1);
      next.push(b);
    };
    if ((side.frontier[0] as WhyVertex).startsWith('n')) {
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
  const vertices = [...new Set(on.flatMap((set) => [...set]))];
  const labels = yield* read(
    'labels',
    vertices.filter((v) => v.startsWith('n')),
    vertices.filter((v) => v.startsWith('i')),
  );
  return smallestChain(on, adjacent, new Map(labels.nodes), new Map(labels.ids));
}

/**
 * The vertices on a shortest chain of `distance` steps at each position (position i: i from the `from` side and
 * distance - i from the `to` side), found back from where the two searches met.
 */
function onShortestChains(
  distance: number,
  fromDist: Map<WhyVertex, number>,
  toDist: Map<WhyVertex, number>,
  adjacent: Map<WhyVertex, Set<WhyVertex>>,
): Array<Set<WhyVertex>> {
  const on: Array<Set<WhyVertex>> = Array.from({ length: distance + 1 }, () => new Set<WhyVertex>());
  // Where the two searches met: vertices both reached, on a shortest chain.
  for (const [v, a] of fromDist) {
    const b = toDist.get(v);
    if (b !== undefined && a + b === distance) on[a]?.add(v);
  }
  const met = on.findIndex((set) => set.size > 0);
  for (let i = met; i > 0; i--) {
    for (const v of on[i] as Set<WhyVertex>) for (const u of adjacent.get(v) ?? []) if (fromDist.get(u) === i - 1) on[i - 1]?.add(u);
  }
  const last = on.length - 1 - [...on].reverse().findIndex((set) => set.size > 0);
  for (let i = last; i < distance; i++) {
    for (const v of on[i] as Set<WhyVertex>) for (const u of adjacent.get(v) ?? []) if (toDist.get(u) === distance - i - 1) on[i + 1]?.add(u);
  }
  return on;
}

/**
 * The smallest shortest chain through the layers `on`: the smallest via at each odd position among those next to
 * the nodes still possible, then at each node position the smallest node holding both vias beside it.
 */
function smallestChain(
  on: Array<Set<WhyVertex>>,
  adjacent: Map<WhyVertex, Set<WhyVertex>>,
  nodes: Map<WhyVertex, ChainNode>,
  ids: Map<WhyVertex, IdPair>,
): Chain {
  const distance = on.length - 1;
  const near = (v: WhyVertex, u: WhyVertex) => adjacent.get(v)?.has(u) ?? false;
  const viaVertices: WhyVertex[] = [];
  let possible = [...(on[0] as Set<WhyVertex>)];
  for (let i = 1; i < distance; i += 2) {
    const options = [...(on[i] as Set<WhyVertex>)].filter((v) => possible.some((n) => near(v, n)));
    const via = options.sort((a, b) => byTypeThenId(ids.get(a) as IdPair, ids.get(b) as IdPair))[0] as WhyVertex;
    viaVertices.push(via);
    possible = [...(on[i + 1] as Set<WhyVertex>)].filter((n) => near(via, n));
  }
  const chainNodes: ChainNode[] = [];
  for (let i = 0; i <= distance; i += 2) {
    const before = viaVertices[i / 2 - 1];
    const after = viaVertices[i / 2];
    const options = [...(on[i] as Set<WhyVertex>)].filter((n) => (before === undefined || near(before, n)) && (after === undefined || near(after, n)));
    chainNodes.push(options.map((n) => nodes.get(n) as ChainNode).sort(compareNodes)[0] as ChainNode);
  }
  return { nodes: chainNodes, vias: viaVertices.map((v) => ids.get(v) as IdPair) };
}
