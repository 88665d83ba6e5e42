// The exact `_why` search, the same on every store: a bidirectional breadth-first search over the bipartite graph
// of nodes and IDs, one level of the smaller side at a time, then the smallest of the shortest chains
// (compareChains) chosen from what it read, never enumerating them (equal chains multiply with every hop two nodes
// share several IDs on), in time linear in what it read. A generator: it yields what it needs read and takes the
// links back, so SQLite drives it synchronously and Neo4j with await (runWhySearch, runWhySearchAsync).
import { DomainError } from './errors';
import { at, present } from './invariant';
import type { IdPair } from './model';
import { tooManyIdsToRead } from './refusals';
import { compareIds, compareNodes, WHY_SEARCH_HOPS, type Chain, type ChainNode, type WhyQuery } from './why';

/**
 * A vertex as its store names it, a number or a string, each node's and each ID's different. A search starts from
 * nodes and steps between nodes and IDs, so a vertex an even number of steps from its side's start is a node.
 */
export type WhyVertex = string | number;

/**
 * Links read from some vertices: the vertex at i of `far` is linked to the one at i of `near`. Two lists rather than
 * a pair a link: tens of thousands of links cost two arrays, not one each.
 */
export type Links<V> = [near: V[], far: V[]];

/** What the search reads from its store, for one query. */
export interface WhyGraph<V extends WhyVertex = WhyVertex> {
  /** The IDs each node holds, but those of the query's unlinkedTypes (they link nothing): [nodes, ids]. */
  idsOfNodes(nodes: V[]): Links<V>;
  /** The holders of each ID: [ids, nodes]. */
  nodesOfIds(ids: V[]): Links<V>;
  /** The values of IDs and the keys of nodes. */
  labels(nodes: V[], ids: V[]): { nodes: Array<[V, ChainNode]>; ids: Array<[V, IdPair]> };
}

export type AsyncWhyGraph<V extends WhyVertex = WhyVertex> = {
  [K in keyof WhyGraph<V>]: (...args: Parameters<WhyGraph<V>[K]>) => Promise<ReturnType<WhyGraph<V>[K]>>;
};

type Labels<V extends WhyVertex> = ReturnType<WhyGraph<V>['labels']>;
type Read<V extends WhyVertex> =
  { read: 'idsOfNodes'; args: [nodes: V[]] } | { read: 'nodesOfIds'; args: [ids: V[]] } | { read: 'labels'; args: [nodes: V[], ids: V[]] };
/** What a driver answers a read: links are an array, labels are not. */
type Answer<V extends WhyVertex> = Links<V> | Labels<V>;
type Search<V extends WhyVertex> = Generator<Read<V>, Chain | undefined, Answer<V>>;

function* readLinks<V extends WhyVertex>(request: Read<V> & { read: 'idsOfNodes' | 'nodesOfIds' }): Generator<Read<V>, Links<V>, Answer<V>> {
  const links = yield request;
  if (!Array.isArray(links)) throw new Error(`Invariant broken: ${request.read} answered no links.`);
  return links;
}

function* readLabels<V extends WhyVertex>(nodes: V[], ids: V[]): Generator<Read<V>, Labels<V>, Answer<V>> {
  const labels = yield { read: 'labels', args: [nodes, ids] };
  if (Array.isArray(labels)) throw new Error('Invariant broken: labels answered links.');
  return labels;
}

/** The search driven by a store that reads synchronously. */
export function runWhySearch<V extends WhyVertex>(graph: WhyGraph<V>, from: V[], to: V[], query: WhyQuery): Chain | undefined {
  const search = whySearch(from, to, query);
  let step = search.next();
  while (!step.done) step = search.next(answerNow(graph, step.value));
  return step.value;
}

/** The search driven by a store that reads asynchronously. */
export async function runWhySearchAsync<V extends WhyVertex>(graph: AsyncWhyGraph<V>, from: V[], to: V[], query: WhyQuery): Promise<Chain | undefined> {
  const search = whySearch(from, to, query);
  let step = search.next();
  while (!step.done) step = search.next(await answerLater(graph, step.value));
  return step.value;
}

function answerNow<V extends WhyVertex>(graph: WhyGraph<V>, r: Read<V>): Answer<V> {
  switch (r.read) {
    case 'idsOfNodes':
      return graph.idsOfNodes(...r.args);
    case 'nodesOfIds':
      return graph.nodesOfIds(...r.args);
    case 'labels':
      return graph.labels(...r.args);
  }
}

function answerLater<V extends WhyVertex>(graph: AsyncWhyGraph<V>, r: Read<V>): Promise<Answer<V>> {
  switch (r.read) {
    case 'idsOfNodes':
      return graph.idsOfNodes(...r.args);
    case 'nodesOfIds':
      return graph.nodesOfIds(...r.args);
    case 'labels':
      return graph.labels(...r.args);
  }
}

type Adjacency<V> = Map<V, V[]>;

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
  const sideFrom = (vertices: V[]): Side<V> => ({ dist: new Map(vertices.map((v) => [v, 0])), frontier: vertices, level: 0 });
  const forward = sideFrom(from);
  const backward = sideFrom(to);
  // Each vertex's neighbours read so far; a link read from both sides is there twice, which no step below minds.
  const adjacent: Adjacency<V> = new Map();
  const linkOne = (x: V, y: V) => {
    const list = adjacent.get(x);
    if (list) list.push(y);
    else adjacent.set(x, [y]);
  };
  // Distinct vertices read by either side: one is new when neither side had reached it.
  let nodesSeen = new Set([...from, ...to]).size;
  let idsSeen = 0;
  if (nodesSeen > query.maxNodes) throw tooManyNodes();

  let distance = [...forward.dist.keys()].some((v) => backward.dist.has(v)) ? 0 : -1;
  while (distance < 0 && forward.level + backward.level < 2 * WHY_SEARCH_HOPS) {
    if (forward.frontier.length === 0 || backward.frontier.length === 0) break;
    const side = forward.frontier.length <= backward.frontier.length ? forward : backward;
    const other = side === forward ? backward : forward;
    const next: V[] = [];
    /** Links a and b; true when b is new to both sides. */
    const reach = (a: V, b: V): boolean => {
      linkOne(a, b);
      linkOne(b, a);
      if (side.dist.has(b)) return false;
      side.dist.set(b, side.level + 1);
      next.push(b);
      return !other.dist.has(b);
    };
    if (side.level % 2 === 0) {
      const [nodes, ids] = yield* readLinks<V>({ read: 'idsOfNodes', args: [side.frontier] });
      for (let i = 0; i < nodes.length; i++) if (reach(at(nodes, i), at(ids, i))) idsSeen += 1;
      if (idsSeen > query.maxIds) throw tooManyIdsToRead(query.maxIds);
    } else {
      const [ids, nodes] = yield* readLinks<V>({ read: 'nodesOfIds', args: [side.frontier] });
      for (let i = 0; i < ids.length; i++) if (reach(at(ids, i), at(nodes, i))) nodesSeen += 1;
      if (nodesSeen > query.maxNodes) throw tooManyNodes();
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
  // Position i of a chain is i steps from its `from` end (one position a vertex): nodes at even positions, IDs at odd ones.
  const atParity = (parity: number) => on.filter((_, i) => i % 2 === parity).flatMap((set) => [...set]);
  const labels = yield* readLabels(atParity(0), atParity(1));
  return smallestChain(on, adjacent, new Map(labels.nodes), new Map(labels.ids), new Set(query.maskedTypes));
}

/**
 * The vertices on a shortest chain of `distance` steps at each position (position i: i from the `from` side and
 * distance - i from the `to` side), found back from where the two searches met.
 */
function onShortestChains<V extends WhyVertex>(distance: number, fromDist: Map<V, number>, toDist: Map<V, number>, adjacent: Adjacency<V>): Array<Set<V>> {
  const on: Array<Set<V>> = Array.from({ length: distance + 1 }, () => new Set<V>());
  // Where the two searches met: vertices both reached, on a shortest chain.
  fromDist.forEach((a, v) => {
    const b = toDist.get(v);
    if (b !== undefined && a + b === distance) on[a]?.add(v);
  });
  const met = on.findIndex((set) => set.size > 0);
  for (let i = met; i > 0; i--) {
    for (const v of at(on, i)) for (const u of adjacent.get(v) ?? []) if (fromDist.get(u) === i - 1) on[i - 1]?.add(u);
  }
  const last = on.length - 1 - [...on].reverse().findIndex((set) => set.size > 0);
  for (let i = last; i < distance; i++) {
    for (const v of at(on, i)) for (const u of adjacent.get(v) ?? []) if (toDist.get(u) === distance - i - 1) on[i + 1]?.add(u);
  }
  return on;
}

/**
 * The smallest shortest chain through the layers `on` by compareChains, as the caller sees it (`masked`), in time
 * linear in what the search read: each step below walks the layers once, each vertex's links at most once each.
 * Equal chains are never listed (they multiply with every hop), only the vertices still on one of them.
 */
function smallestChain<V extends WhyVertex>(
  on: Array<Set<V>>,
  adjacent: Adjacency<V>,
  nodes: Map<V, ChainNode>,
  ids: Map<V, IdPair>,
  masked: ReadonlySet<string>,
): Chain {
  const distance = on.length - 1;
  const idOf = (v: V) => present(ids.get(v), 'the value of an ID the search read');
  const nodeOf = (v: V) => present(nodes.get(v), 'the key of a node the search read');
  const viaOrder = (a: V, b: V) => compareIds(idOf(a), idOf(b), masked);
  const nodeOrder = (a: V, b: V) => compareNodes(nodeOf(a), nodeOf(b), masked);
  /** The vertices of `among` next to one of `near`. */
  const nextTo = (near: Set<V>, among: Set<V>): Set<V> => {
    const found = new Set<V>();
    for (const v of near) for (const u of adjacent.get(v) ?? []) if (among.has(u)) found.add(u);
    return found;
  };
  // kept[i]: the vertices at position i still on a chain that may be the smallest.
  const kept = on.map((layer) => new Set(layer));
  // The vias, from the `from` end: at each position the smallest next to a node still kept (several only when the
  // caller cannot tell them apart), then the nodes next to those.
  for (let i = 1; i < distance; i += 2) {
    kept[i] = smallest(nextTo(at(kept, i - 1), at(kept, i)), viaOrder);
    kept[i + 1] = nextTo(at(kept, i), at(kept, i + 1));
  }
  // Back from the `to` end, only what lies on a chain through the vias kept: every vertex kept then has a neighbour
  // kept on both sides.
  for (let i = distance - 1; i >= 0; i--) kept[i] = nextTo(at(kept, i + 1), at(kept, i));
  // The node keys, from the `from` end, among the chains left.
  for (let i = 0; i <= distance; i++) {
    if (i > 0) kept[i] = nextTo(at(kept, i - 1), at(kept, i));
    if (i % 2 === 0) kept[i] = smallest(at(kept, i), nodeOrder);
  }
  // One chain through what is left, back from the `to` end; any one: those left look the same to the caller.
  const backwards: V[] = [first(at(kept, distance))];
  for (let i = distance - 1; i >= 0; i--) backwards.push(first(nextTo(new Set(backwards.slice(-1)), at(kept, i))));
  const chain = backwards.reverse();
  return {
    nodes: chain.filter((_, i) => i % 2 === 0).map(nodeOf),
    vias: chain.filter((_, i) => i % 2 === 1).map(idOf),
  };
}

/** The vertices equal to the smallest of `vertices` by `order`, in one pass. */
function smallest<V extends WhyVertex>(vertices: Set<V>, order: (a: V, b: V) => number): Set<V> {
  let least: V[] = [];
  for (const v of vertices) {
    const [leader] = least;
    const c = leader === undefined ? -1 : order(v, leader);
    if (c < 0) least = [v];
    else if (c === 0) least.push(v);
  }
  return new Set(least);
}

/** A vertex of a set that cannot be empty: every vertex kept has a neighbour kept on both sides. */
function first<V>(vertices: Set<V>): V {
  for (const v of vertices) return v;
  throw new Error('a layer of shortest chains is empty');
}
