// The explorer's graph on Neo4j (docs/explorer.md), with the SQLite store's semantics: the search's start nodes
// (neo4j-search.ts), the nodes ONE or ALL reaches under the search's bounds with what cutGraph orders by
// (cypher/graph.reach-*.cypher), then the IDs of the nodes answered (cypher/graph.ids.cypher).
import { DomainError } from '../../domain/errors';
import { cutGraph, type GraphCandidate, type GraphComponent, graphAnswerSize, type GraphQuery } from '../../domain/graph';
import type { IdPair } from '../../domain/model';
import { tooManyIdsToRead } from '../../domain/store';
import { startNodes, traversalOf } from './neo4j-search';
import { int, type Query } from './query';

/** What a graph.reach-* statement answers: the counts the bounds are checked on, and the nodes when within them. */
interface Reach {
  visited: number;
  idsRead: number;
  nodes: Array<{ ref: string; level?: number; schema: string | null; keyType: string | null; keyId: string | null; idCount: number; idChars?: number }>;
}

const GRAPH_TRAVERSALS = { all: 'graph.reach-all', oneFromId: 'graph.reach-one-from-id', one: 'graph.reach-one' } as const;

/** Runs inside one read transaction of the store. */
export async function graphOf(q: Query, query: GraphQuery): Promise<GraphComponent> {
  const tooLarge = () =>
    new DomainError('component_too_large', `The search would visit more than ${query.maxNodes} nodes; narrow it (step ONE, or another start).`);
  const start = await startNodes(q, query, int(query.maxNodes + 1));
  if (start.nodes.length === 0) return { nodes: [], truncated: false };
  if (start.nodes.length > query.maxNodes) throw tooLarge();

  const bounds = { maxNodes: int(query.maxNodes), maxIds: int(query.maxIds), unlinkedTypes: query.unlinkedTypes, hiddenTypes: query.hiddenTypes };
  // The search's choice of traversal (neo4j-search.ts), with the graph's statements.
  const traversal = traversalOf(start, query);
  const [reach] = await q<Reach>(GRAPH_TRAVERSALS[traversal.shape], { ...traversal.from, ...bounds });
  if ((reach?.visited ?? 0) > query.maxNodes) throw tooLarge();
  if ((reach?.idsRead ?? 0) > query.maxIds) throw tooManyIdsToRead(query.maxIds);

  const starts = new Set(start.nodes);
  // A node deleted after the traversal reached it and before its properties were read has none: it is gone, as one
  // deleted before the traversal is, and is left out, as graph.ids leaves one out below. Neo4j reads each property
  // when it comes to it, so a delete that commits between two of them leaves only the later ones null.
  const candidates = (reach?.nodes ?? []).flatMap((n): Array<GraphCandidate<string>> =>
    n.schema === null || n.keyType === null || n.keyId === null
      ? []
      : [
          {
            ref: n.ref,
            // ONE: the start nodes, then the nodes sharing an ID with one of them.
            level: n.level ?? (starts.has(n.ref) ? 0 : 1),
            start: starts.has(n.ref),
            schemaId: n.schema,
            key: { type: n.keyType, id: n.keyId },
            idCount: n.idCount,
            idChars: n.idChars ?? 0,
          },
        ],
  );
  const { chosen, truncated } = cutGraph(candidates, query);
  if (chosen.length === 0) return { nodes: [], truncated };
  // Room for the answer before its IDs are read (graph.ids).
  const size = graphAnswerSize(
    chosen.map((c) => ({ ...c, idChars: c.idChars ?? 0 })),
    query.hiddenTypes,
  );
  if (query.answerRoom && size > query.answerRoom.freeBytes) query.answerRoom.take(size);
  const idsOf = new Map((await q<{ ref: string; ids: IdPair[] }>('graph.ids', { nodes: chosen.map((c) => c.ref) })).map((r) => [r.ref, r.ids]));
  const nodes = chosen.flatMap((c) => {
    const ids = idsOf.get(c.ref);
    return ids === undefined ? [] : [{ schemaId: c.schemaId, key: c.key, ids: ids.map((id) => ({ type: id.type, id: id.id })) }];
  });
  return { nodes, truncated };
}
