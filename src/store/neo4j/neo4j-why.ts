// `_why` on Neo4j: one statement (cypher/why.shortest.cypher) reads the customer's policy the starts are checked
// against, finds both starts' nodes and the smallest of the shortest chains between them, by the rule SQLite's
// search follows (compareChains). When more chains tie than it reads, the exact search SQLite runs
// (src/domain/why-chain.ts) answers instead, a statement a level.
import { DomainError } from '../../domain/errors';
import type { IdPair } from '../../domain/model';
import { compareNodes, WHY_SEARCH_HOPS, type Chain, type ChainNode, type WhyFound, type WhyQuery, type WhyStart } from '../../domain/why';
import { runWhySearchAsync, type AsyncWhyGraph } from '../../domain/why-chain';
import type { PolicyRow } from './neo4j-schemas';
import { int, type Query } from './query';

type Vertex = { schema?: string; type: string; id: string };
/** A vertex of a chain as why.shortest answers it: [schema, key type, key id] for a node, [type, value] for an ID. */
type ChainVertex = [string, string, string] | [string, string];

interface Row {
  policy: WhyPolicyRow;
  fromFound: boolean;
  toFound: boolean;
  fromCount: number;
  toCount: number;
  same: Vertex[];
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

const nodeOf = (v: Vertex): ChainNode => ({ schemaId: v.schema as string, key: { type: v.type, id: v.id } });

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
  for (let attempt = 1; ; attempt++) {
    try {
      return await shortestInGraph(q, ask, maxChains);
    } catch (e) {
      if (!(e instanceof GraphChanged)) throw e;
      if (attempt === ATTEMPTS) throw new DomainError('store_unavailable', 'The graph kept changing during the search; try again.');
    }
  }
}

async function shortestInGraph(q: Query, ask: WhyAsk, maxChains: number): Promise<WhyFound> {
  const [row] = await q<Row>('why.shortest', {
    customer: ask.customerId,
    authenticated: ask.check ? ask.authenticated : true,
    ...startParams('from', ask.from),
    ...startParams('to', ask.to),
    unlinkedTypes: ask.check ? null : ask.unlinkedTypes,
    maxStarts: int(ask.maxNodes + 1),
    maxNodes: int(ask.maxNodes),
    maxIds: int(ask.maxIds),
    maxChains: int(maxChains),
  });
  const { customerId, from, to, maxNodes, maxIds } = ask;
  const query: WhyQuery = { customerId, from, to, maxNodes, maxIds, unlinkedTypes: ask.check ? ask.check(row?.policy) : ask.unlinkedTypes };
  if (!row?.fromFound) return { missing: 'from' };
  if (!row.toFound) return { missing: 'to' };
  if (row.fromCount > query.maxNodes || row.toCount > query.maxNodes || row.tooLarge) {
    throw new DomainError('component_too_large', `The search would visit more than ${query.maxNodes} nodes; narrow it (another start).`);
  }
  if (row.same.length > 0) return { chain: { nodes: [row.same.map(nodeOf).sort(compareNodes)[0] as ChainNode], vias: [] } };
  if (row.fromElements.length > 0) {
    return { chain: await runWhySearchAsync(graphOf(q, query), row.fromElements, row.toElements, query) };
  }
  const vertices = row.chain;
  if (!vertices) return { chain: undefined };
  const chain: Chain = {
    nodes: vertices.filter((_, i) => i % 2 === 0).map(([schemaId, type, id]): ChainNode => ({ schemaId, key: { type, id: id as string } })),
    vias: vertices.filter((_, i) => i % 2 === 1).map(([type, id]): IdPair => ({ type, id })),
  };
  return { chain: chain.vias.length > WHY_SEARCH_HOPS ? undefined : chain };
}

/** The exact search's reads: a vertex is its element id, unique among nodes and IDs alike. */
function graphOf(q: Query, query: WhyQuery): AsyncWhyGraph<string> {
  return {
    idsOfNodes: async (nodes) =>
      (await q<{ node: string; id: string; type: string }>('why.ids-of-nodes', { customer: query.customerId, nodes, unlinkedTypes: query.unlinkedTypes })).map(
        (r): [string, string, string] => [r.node, r.id, r.type],
      ),
    nodesOfIds: async (ids) =>
      (await q<{ id: string; node: string }>('why.nodes-of-ids', { customer: query.customerId, ids })).map((r): [string, string] => [r.id, r.node]),
    labels: async (nodes, ids) => {
      type Labels = { nodes: Array<Vertex & { ref: string }>; ids: Array<{ ref: string; type: string; id: string }> };
      const [row] = await q<Labels>('why.labels', { customer: query.customerId, nodes, ids });
      if (!row || row.nodes.length !== nodes.length || row.ids.length !== ids.length) throw new GraphChanged();
      return {
        nodes: row.nodes.map((n): [string, ChainNode] => [n.ref, nodeOf(n)]),
        ids: row.ids.map((x): [string, IdPair] => [x.ref, { type: x.type, id: x.id }]),
      };
    },
  };
}
