// `_why` on SQLite: a bidirectional breadth-first search over the bipartite graph of nodes and IDs, one level of
// the smaller side at a time, then the smallest of the shortest chains (compareChains) chosen from what it read.
import type Database from 'better-sqlite3';
import { DomainError } from '../../domain/errors';
import { byTypeThenId } from '../../domain/code-point-order';
import type { IdPair } from '../../domain/model';
import { tooManyIdsToRead } from '../../domain/store';
import { compareNodes, WHY_SEARCH_HOPS, type Chain, type ChainNode, type WhyFound, type WhyQuery, type WhyStart } from '../../domain/why';

/** A vertex: 'n' and a node's primary key, or 'i' and an ID's. */
type Vertex = string;

interface Side {
  dist: Map<Vertex, number>;
  frontier: Vertex[];
  level: number;
}

export class SqliteWhy {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      idsOfNodes: db
        .prepare('SELECT ni.node_pk, ni.id_pk, i.type FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk WHERE ni.node_pk IN (SELECT value FROM json_each(?))')
        .raw(),
      nodesOfIds: db.prepare('SELECT id_pk, node_pk FROM node_ids WHERE id_pk IN (SELECT value FROM json_each(?))').raw(),
      idValues: db.prepare('SELECT id_pk, type, value FROM ids WHERE id_pk IN (SELECT value FROM json_each(?))').raw(),
      nodeKeys: db.prepare('SELECT node_pk, schema_id, key_type, key_id FROM nodes WHERE node_pk IN (SELECT value FROM json_each(?))').raw(),
    };
  }

  /** Run inside one read transaction, with the search's start nodes. */
  why(query: WhyQuery, startNodes: (start: WhyStart) => number[]): WhyFound {
    const from = startNodes(query.from);
    if (from.length === 0) return { missing: 'from' };
    const to = startNodes(query.to);
    if (to.length === 0) return { missing: 'to' };
    const tooManyNodes = () => new DomainError('component_too_large', `The search would visit more than ${query.maxNodes} nodes; narrow it (another start).`);
    const sides: [Side, Side] = [from, to].map((nodes) => {
      const vertices = nodes.map((pk) => `n${pk}`);
      return { dist: new Map(vertices.map((v) => [v, 0])), frontier: vertices, level: 0 };
    }) as [Side, Side];
    const [forward, backward] = sides;
    const adjacent = new Map<Vertex, Set<Vertex>>();
    const link = (a: Vertex, b: Vertex) => {
      for (const [x, y] of [
        [a, b],
        [b, a],
      ] as const) {
        const set = adjacent.get(x) ?? new Set<Vertex>();
        set.add(y);
        adjacent.set(x, set);
      }
    };
    const nodesSeen = new Set([...from, ...to].map((pk) => `n${pk}`));
    const idsSeen = new Set<Vertex>();
    if (nodesSeen.size > query.maxNodes) throw tooManyNodes();
    const unlinked = new Set(query.unlinkedTypes);

    let distance = [...forward.dist.keys()].some((v) => backward.dist.has(v)) ? 0 : -1;
    while (distance < 0 && forward.level + backward.level < 2 * WHY_SEARCH_HOPS) {
      if (forward.frontier.length === 0 || backward.frontier.length === 0) break;
      const side = forward.frontier.length <= backward.frontier.length ? forward : backward;
      const other = side === forward ? backward : forward;
      const pks = JSON.stringify(side.frontier.map((v) => Number(v.slice(1))));
      const next: Vertex[] = [];
      const reach = (a: Vertex, b: Vertex) => {
        link(a, b);
        if (side.dist.has(b)) return;
        side.dist.set(b, side.level + 1);
        next.push(b);
      };
      if ((side.frontier[0] as Vertex).startsWith('n')) {
        for (const [nodePk, idPk, type] of this.s.idsOfNodes.all(pks) as Array<[number, number, string]>) {
          if (unlinked.has(type)) continue;
          const id = `i${idPk}`;
          idsSeen.add(id);
          reach(`n${nodePk}`, id);
        }
        if (idsSeen.size > query.maxIds) throw tooManyIdsToRead(query.maxIds);
      } else {
        for (const [idPk, nodePk] of this.s.nodesOfIds.all(pks) as Array<[number, number]>) {
          const node = `n${nodePk}`;
          nodesSeen.add(node);
          reach(`i${idPk}`, node);
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
    if (distance < 0) return { chain: undefined };
    return { chain: this.smallestChain(distance, forward.dist, backward.dist, adjacent) };
  }

  /**
   * The smallest shortest chain of `distance` vertices' steps: the vertices on a shortest chain at each position
   * (position i: i from the `from` side and distance - i from the `to` side), then the smallest via at each odd
   * position among those next to the nodes still possible, then at each node position the smallest node holding
   * both vias beside it.
   */
  private smallestChain(distance: number, fromDist: Map<Vertex, number>, toDist: Map<Vertex, number>, adjacent: Map<Vertex, Set<Vertex>>): Chain {
    const on: Array<Set<Vertex>> = Array.from({ length: distance + 1 }, () => new Set<Vertex>());
    const both = (v: Vertex) => {
      const a = fromDist.get(v);
      const b = toDist.get(v);
      return a !== undefined && b !== undefined && a + b === distance ? a : undefined;
    };
    // Where the two searches met: vertices both reached, on a shortest chain.
    for (const [v] of fromDist) {
      const at = both(v);
      if (at !== undefined) on[at]?.add(v);
    }
    const met = on.findIndex((set) => set.size > 0);
    for (let i = met; i > 0; i--) {
      for (const v of on[i] as Set<Vertex>) for (const u of adjacent.get(v) ?? []) if (fromDist.get(u) === i - 1) on[i - 1]?.add(u);
    }
    const last = on.length - 1 - [...on].reverse().findIndex((set) => set.size > 0);
    for (let i = last; i < distance; i++) {
      for (const v of on[i] as Set<Vertex>) for (const u of adjacent.get(v) ?? []) if (toDist.get(u) === distance - i - 1) on[i + 1]?.add(u);
    }
    const vertices = [...new Set(on.flatMap((set) => [...set]))];
    const ids = new Map<Vertex, IdPair>();
    const nodes = new Map<Vertex, ChainNode>();
    const pks = (kind: string) => JSON.stringify(vertices.filter((v) => v.startsWith(kind)).map((v) => Number(v.slice(1))));
    for (const [pk, type, id] of this.s.idValues.all(pks('i')) as Array<[number, string, string]>) ids.set(`i${pk}`, { type, id });
    for (const [pk, schemaId, type, id] of this.s.nodeKeys.all(pks('n')) as Array<[number, string, string, string]>)
      nodes.set(`n${pk}`, { schemaId, key: { type, id } });
    const near = (v: Vertex, u: Vertex) => adjacent.get(v)?.has(u) ?? false;
    const viaVertices: Vertex[] = [];
    let possible = [...(on[0] as Set<Vertex>)];
    for (let i = 1; i < distance; i += 2) {
      const options = [...(on[i] as Set<Vertex>)].filter((v) => possible.some((n) => near(v, n)));
      const via = options.sort((a, b) => byTypeThenId(ids.get(a) as IdPair, ids.get(b) as IdPair))[0] as Vertex;
      viaVertices.push(via);
      possible = [...(on[i + 1] as Set<Vertex>)].filter((n) => near(via, n));
    }
    const chainNodes: ChainNode[] = [];
    for (let i = 0; i <= distance; i += 2) {
      const before = viaVertices[i / 2 - 1];
      const after = viaVertices[i / 2];
      const options = [...(on[i] as Set<Vertex>)].filter((n) => (before === undefined || near(before, n)) && (after === undefined || near(after, n)));
      chainNodes.push(options.map((n) => nodes.get(n) as ChainNode).sort(compareNodes)[0] as ChainNode);
    }
    return { nodes: chainNodes, vias: viaVertices.map((v) => ids.get(v) as IdPair) };
  }
}
