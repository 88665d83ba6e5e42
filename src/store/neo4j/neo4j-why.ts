// `_why` on Neo4j: one statement (cypher/why.shortest.cypher) reads the customer's policy the starts are checked
// against, finds both starts' nodes and the smallest of the shortest chains between them, by the rule SQLite's
// search follows (compareChains). When more chains tie than it reads, the exact search SQLite runs
// (src/domain/why-chain.ts) answers instead, a statement a level, one such search at a time.
import { createHash } from 'node:crypto';
import { Semaphore } from 'async-mutex';
import { LRUCache } from 'lru-cache';
import { DomainError } from '../../domain/errors';
import { at, present } from '../../domain/invariant';
import type { IdPair } from '../../domain/model';
import { compareNodes, maskedFor, WHY_SEARCH_HOPS, type Chain, type ChainNode, type WhyFound, type WhyQuery, type WhyStart } from '../../domain/why';
import { runWhySearchAsync, type AsyncWhyGraph, type Links } from '../../domain/why-chain';
import type { PolicyRow } from './neo4j-schemas';
import { int, type Query } from './query';
import type { StatementName } from './statements';

/** A node as why.shortest answers it in `same`. */
type NodeVertex = { schema: string; type: string; id: string };
/** A vertex of a chain as why.shortest answers it: [schema, key type, key id] for a node, [type, value] for an ID. */
type ChainVertex = [string, string, string] | [string, string];

interface Row {
  policy: WhyPolicyRow;
  fromFound: boolean;
  toFound: boolean;
  fromCount: number;
  toCount: number;
  same: NodeVertex[];
  tooLarge: boolean;
  /** The smallest shortest chain (null when none): its vertices from a node of `from` to a node of `to`. */
  chain: ChainVertex[] | null;
  /** The start nodes' element ids, only when maxChains chains were read (then `chain` is null). */
  fromElements: string[];
  toElements: string[];
}

/**
 * At most this many equal shortest chains are read, and the smallest of them answered. When that many are read
 * (two nodes sharing several IDs on each of many hops), more may tie: the exact search answers instead.
 */
const MAX_CHAINS = 1000;

/**
 * Exact searches run one at a time in this process; the others wait their turn, within the read's time limit
 * (NEO4J_CALL_TIMEOUT_MS). One holds megabytes and a good part of a second of the event loop around a hub of ten
 * thousand chains (docs/why.md): side by side, a few clients repeating one took every core and a gigabyte from
 * everyone else. A `_why` whose last answer needed one waits for its turn before why.shortest too, so that clients
 * repeating it keep Neo4j no busier than one does; one that turns out not to need it is forgotten.
 */
const exactSearches = new Semaphore(1);
/** Digests of the `_why`s whose last answer needed the exact search: never their values (a start may be a secure ID). */
const exactAsks = new LRUCache<string, true>({ max: 10_000 });

const digestOf = (ask: WhyAsk): string =>
  createHash('sha256')
    .update(JSON.stringify([ask.customerId, ask.from, ask.to]))
    .digest('base64');

/** Runs an exact search: in its turn, or at once when the `_why` already has the turn. */
type ExactTurn = (search: () => Promise<Chain | undefined>) => Promise<Chain | undefined>;

/** Attempts of the exact search when a vertex it read was deleted before its last statement. */
const ATTEMPTS = 3;

/** The exact search read a vertex that is gone by its last statement: the graph changed under it. */
class GraphChanged extends Error {}

/** A start as the statement's flat parameters, prefixed by its side: `fromSchema`, `toKeyId`, ... */
const startParams = (side: 'from' | 'to', start: WhyStart) => ({
  [`${side}Schema`]: start.key?.schemaId ?? start.where?.schemaId ?? null,
  [`${side}KeyType`]: start.key?.key.type ?? null,
  [`${side}KeyId`]: start.key?.key.id ?? null,
  [`${side}WhereType`]: start.where?.id.type ?? null,
  [`${side}WhereValue`]: start.where?.id.id ?? null,
});

const nodeOf = (v: NodeVertex): ChainNode => ({ schemaId: v.schema, key: { type: v.type, id: v.id } });

/** A node of a chain: [schema, key type, key id] (the even places of `chain`). */
const chainNodeOf = ([schemaId, type, id]: ChainVertex): ChainNode => ({ schemaId, key: { type, id: present(id, 'the key id of a node of a chain') } });

/** What why.shortest reads of the customer's policy: customer.policy.cypher's columns, with each start's schema. */
export type WhyPolicyRow = Pick<PolicyRow, 'secureTypes' | 'unlinkedTypes' | 'settings' | 'blocklist'> & {
  fromSchema: PolicyRow['schema'];
  toSchema: PolicyRow['schema'];
};

/**
 * A `_why` as why.shortest runs it: with the types it never steps through, or else with whether the caller has a
 * token and `check`, which is given the policy the statement read before anything else of its answer is used,
 * throws the refusal, and answers the policy's `links: false` types.
 */
export type WhyAsk =
  (WhyQuery & { check?: undefined }) | (Omit<WhyQuery, 'unlinkedTypes'> & { authenticated: boolean; check: (policy: WhyPolicyRow | undefined) => string[] });

export async function whyInGraph(q: Query, ask: WhyAsk, maxChains = MAX_CHAINS): Promise<WhyFound> {
  const digest = digestOf(ask);
  if (!exactAsks.has(digest)) {
    return attempts(q, ask, maxChains, (search) => {
      exactAsks.set(digest, true);
      return exactSearches.runExclusive(search);
    });
  }
  return exactSearches.runExclusive(async () => {
    let exact = false;
    const found = await attempts(q, ask, maxChains, (search) => {
      exact = true;
      return search();
    });
    if (!exact) exactAsks.delete(digest);
    return found;
  });
}

async function attempts(q: Query, ask: WhyAsk, maxChains: number, exactTurn: ExactTurn): Promise<WhyFound> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await shortestInGraph(q, ask, maxChains, exactTurn);
    } catch (e) {
      if (!(e instanceof GraphChanged)) throw e;
      if (attempt === ATTEMPTS) throw new DomainError('store_unavailable', 'The graph kept changing during the search; try again.');
    }
  }
}

async function shortestInGraph(q: Query, ask: WhyAsk, maxChains: number, exactTurn: ExactTurn): Promise<WhyFound> {
  const [row] = await q<Row>('why.shortest', {
    customer: ask.customerId,
    authenticated: ask.check ? ask.authenticated : true,
    maskedTypes: ask.check ? null : (ask.maskedTypes ?? []),
    ...startParams('from', ask.from),
    ...startParams('to', ask.to),
    unlinkedTypes: ask.check ? null : ask.unlinkedTypes,
    maxStarts: int(ask.maxNodes + 1),
    maxNodes: int(ask.maxNodes),
    maxIds: int(ask.maxIds),
    maxChains: int(maxChains),
  });
  const { customerId, from, to, maxNodes, maxIds } = ask;
  const unlinkedTypes = ask.check ? ask.check(row?.policy) : ask.unlinkedTypes;
  // As the statement masked: the secure types it read, for a caller without a token.
  const maskedTypes = ask.check ? maskedFor(ask.authenticated, { secureTypes: row?.policy.secureTypes ?? [] }) : (ask.maskedTypes ?? []);
  const query: WhyQuery = { customerId, from, to, maxNodes, maxIds, unlinkedTypes, maskedTypes };
  if (!row?.fromFound) return { missing: 'from' };
  if (!row.toFound) return { missing: 'to' };
  if (row.fromCount > query.maxNodes || row.toCount > query.maxNodes || row.tooLarge) {
    throw new DomainError('component_too_large', `The search would visit more than ${query.maxNodes} nodes; narrow it (another start).`);
  }
  if (row.same.length > 0) {
    const masked = new Set(maskedTypes);
    const least = row.same.map(nodeOf).reduce((a, b) => (compareNodes(b, a, masked) < 0 ? b : a));
    return { chain: { nodes: [least], vias: [] } };
  }
  if (row.fromElements.length > 0) {
    const { fromElements, toElements } = row;
    return {
      chain: await exactTurn(() => {
        const { graph, vertices } = graphOf(q, query);
        return runWhySearchAsync(graph, vertices(fromElements), vertices(toElements), query);
      }),
    };
  }
  const vertices = row.chain;
  if (!vertices) return { chain: undefined };
  const chain: Chain = {
    nodes: vertices.filter((_, i) => i % 2 === 0).map(chainNodeOf),
    vias: vertices.filter((_, i) => i % 2 === 1).map(([type, id]): IdPair => ({ type, id })),
  };
  return { chain: chain.vias.length > WHY_SEARCH_HOPS ? undefined : chain };
}

/**
 * The exact search's reads. A vertex is its element id, unique among nodes and IDs alike, numbered here as first
 * seen: the search's maps then hash small integers, not element ids of forty characters (as the SQLite store's
 * search does). The statements name the vertices they were given by their places in the list, and each vertex they
 * find once.
 */
function graphOf(q: Query, query: WhyQuery): { graph: AsyncWhyGraph<number>; vertices: (elements: string[]) => number[] } {
  // Each answer is used in a turn of the event loop of its own: the driver decodes a hub's thousands of links in
  // one, and the search's step over them would otherwise follow in the same, holding other requests up for both.
  const read = async <T>(name: StatementName, params: Record<string, unknown>): Promise<T | undefined> => {
    const [row] = await q<T>(name, params);
    await new Promise((resolve) => setImmediate(resolve));
    return row;
  };
  const numbers = new Map<string, number>();
  const elements: string[] = [];
  const vertexOf = (element: string): number => {
    let vertex = numbers.get(element);
    if (vertex === undefined) {
      vertex = elements.push(element) - 1;
      numbers.set(element, vertex);
    }
    return vertex;
  };
  const elementsOf = (vertices: number[]) => vertices.map((v) => at(elements, v));
  /** Links from each `far` vertex to the vertices at its `places` in `near`. */
  const links = (near: number[], far: string[], places: number[][]): Links<number> => {
    const linked: Links<number> = [[], []];
    far.forEach((element, k) => {
      const vertex = vertexOf(element);
      for (const place of places[k] ?? []) {
        linked[0].push(at(near, place));
        linked[1].push(vertex);
      }
    });
    return linked;
  };
  const graph: AsyncWhyGraph<number> = {
    idsOfNodes: async (nodes) => {
      const row = await read<{ ids: string[]; holders: number[][] }>('why.ids-of-nodes', {
        customer: query.customerId,
        nodes: elementsOf(nodes),
        unlinkedTypes: query.unlinkedTypes,
      });
      return links(nodes, row?.ids ?? [], row?.holders ?? []);
    },
    nodesOfIds: async (ids) => {
      const row = await read<{ nodes: string[]; held: number[][] }>('why.nodes-of-ids', { customer: query.customerId, ids: elementsOf(ids) });
      return links(ids, row?.nodes ?? [], row?.held ?? []);
    },
    labels: async (nodes, ids) => {
      type Labels = Record<'nodesAt' | 'idsAt', number[]> & Record<'schemas' | 'keyTypes' | 'keyIds' | 'types' | 'values', string[]>;
      const row = await read<Labels>('why.labels', { customer: query.customerId, nodes: elementsOf(nodes), ids: elementsOf(ids) });
      if (!row || row.nodesAt.length !== nodes.length || row.idsAt.length !== ids.length) throw new GraphChanged();
      const { schemas, keyTypes, keyIds, types, values } = row;
      return {
        nodes: row.nodesAt.map((place, i): [number, ChainNode] => [
          at(nodes, place),
          { schemaId: at(schemas, i), key: { type: at(keyTypes, i), id: at(keyIds, i) } },
        ]),
        ids: row.idsAt.map((place, i): [number, IdPair] => [at(ids, place), { type: at(types, i), id: at(values, i) }]),
      };
    },
  };
  return { graph, vertices: (elements) => elements.map(vertexOf) };
}
