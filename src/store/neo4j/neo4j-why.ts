// `_why` on Neo4j: one statement (cypher/why.shortest.cypher) finds both starts' nodes and the shortest chains
// between them; the smallest by compareChains is kept here, the rule SQLite's search follows.
import { DomainError } from '../../domain/errors';
import type { IdPair } from '../../domain/model';
import { compareChains, compareNodes, WHY_SEARCH_HOPS, type Chain, type ChainNode, type WhyFound, type WhyQuery, type WhyStart } from '../../domain/why';
import { int, type Query } from './query';

type Vertex = { schema?: string; type: string; id: string };

interface Row {
  fromFound: boolean;
  toFound: boolean;
  fromCount: number;
  toCount: number;
  same: Vertex[];
  tooLarge: boolean;
  chains: Vertex[][];
}

/**
 * At most this many equal shortest chains are read; the smallest of them is answered. Past it (two nodes sharing
 * several IDs on each of many hops), the chain is still a shortest one, the smallest of those Neo4j gives first.
 */
const MAX_CHAINS = 1000;

/** A start as the statement's flat parameters, prefixed by its side: `fromSchema`, `toKeyId`, ... */
const startParams = (side: 'from' | 'to', start: WhyStart) => ({
  [`${side}Schema`]: start.key?.schemaId ?? start.where?.schemaId ?? null,
  [`${side}KeyType`]: start.key?.key.type ?? null,
  [`${side}KeyId`]: start.key?.key.id ?? null,
  [`${side}WhereType`]: start.where?.id.type ?? null,
  [`${side}WhereValue`]: start.where?.id.id ?? null,
});

const nodeOf = (v: Vertex): ChainNode => ({ schemaId: v.schema as string, key: { type: v.type, id: v.id } });

export async function whyInGraph(q: Query, query: WhyQuery): Promise<WhyFound> {
  const [row] = await q<Row>('why.shortest', {
    customer: query.customerId,
    ...startParams('from', query.from),
    ...startParams('to', query.to),
    unlinkedTypes: query.unlinkedTypes,
    maxStarts: int(query.maxNodes + 1),
    maxNodes: int(query.maxNodes),
    maxIds: int(query.maxIds),
    maxChains: int(MAX_CHAINS),
  });
  if (!row?.fromFound) return { missing: 'from' };
  if (!row.toFound) return { missing: 'to' };
  if (row.fromCount > query.maxNodes || row.toCount > query.maxNodes || row.tooLarge) {
    throw new DomainError('component_too_large', `The search would visit more than ${query.maxNodes} nodes; narrow it (another start).`);
  }
  if (row.same.length > 0) return { chain: { nodes: [row.same.map(nodeOf).sort(compareNodes)[0] as ChainNode], vias: [] } };
  const chains: Chain[] = row.chains.map((path) => {
    // A `where` start searches from its Id vertex: the chain is what lies between the two ends' Id vertices.
    const vertices = path.slice(path[0]?.schema === undefined ? 1 : 0, path.at(-1)?.schema === undefined ? -1 : undefined);
    return {
      nodes: vertices.filter((_, i) => i % 2 === 0).map(nodeOf),
      vias: vertices.filter((_, i) => i % 2 === 1).map((v): IdPair => ({ type: v.type, id: v.id })),
    };
  });
  const shortest = Math.min(...chains.map((c) => c.vias.length));
  if (shortest > WHY_SEARCH_HOPS) return { chain: undefined };
  return { chain: chains.filter((c) => c.vias.length === shortest).sort(compareChains)[0] };
}
