// The explorer's graph on Neo4j (docs/explorer.md), with the SQLite store's semantics, in one statement when its
// answer fits the room every request may use (cypher/graph.one.cypher, graph.all.cypher): the customer's policy and
// declared types, the search's start nodes, the nodes ONE or ALL reaches under the search's bounds with what cutGraph
// orders by, and their IDs. A larger answer takes its room first, then reads the IDs of the nodes it answers
// (cypher/graph.ids.cypher).
import { DomainError } from '../../domain/errors';
import { cutGraph, type GraphCandidate, type GraphComponent, graphAnswerSize, type GraphQuery } from '../../domain/graph';
import { canonicalDeclaration, type CustomerPolicy, type IdPair, type IdTypeDeclaration, type SchemaRecord } from '../../domain/model';
import { searchTypes } from '../../domain/search';
import type { CheckedGraph, StartCheck, UncheckedGraph } from '../../domain/ports/identity-reads';
import { tooManyIdsToRead } from '../../domain/refusals';
import type { PolicyRow } from './neo4j-schemas';
import { startParams } from './neo4j-search';
import { int, type Query } from './query';

/** What graph.one.cypher and graph.all.cypher answer. */
interface GraphRow {
  policy: PolicyRow;
  types: Array<{ type: string; secure: boolean | null; links: boolean; maxHolders: number | null }>;
  visited: number;
  idsRead: number;
  /** Whether `ids` was read for every node: the whole answer fits answerBytes. */
  withIds: boolean;
  nodes: Array<{
    ref: string;
    /** Step ALL: its distance from the origin, in nodes; step ONE: null (start nodes are level 0, the others 1). */
    level: number | null;
    start: boolean;
    schema: string | null;
    keyType: string | null;
    keyId: string | null;
    idCount: number;
    idChars: number;
    ids: IdPair[] | null;
  }>;
}

const GRAPH_STATEMENTS = { ONE: 'graph.one', ALL: 'graph.all' } as const;

/** Neo4jStore.graphWithTypes: the types to hide and never step through are the query's; nothing is checked. Runs inside one read of the store. */
export async function graphOf(q: Query, query: GraphQuery): Promise<GraphComponent> {
  const row = await reach(q, query, { authenticated: true, unlinkedTypes: query.unlinkedTypes, hiddenTypes: query.hiddenTypes });
  return componentOf(q, query, row, query.hiddenTypes);
}

/**
 * IdentityReadStore.graph: `check` runs on the policy the statement read, before anything of its answer is used; the
 * types hidden and never stepped through are the policy's. Runs inside one read of the store.
 */
export async function checkedGraphOf(
  q: Query,
  query: UncheckedGraph,
  check: StartCheck,
  policyOf: (row: PolicyRow | undefined) => { schema: SchemaRecord | undefined; policy: CustomerPolicy },
): Promise<CheckedGraph> {
  const row = await reach(q, query, { authenticated: query.authenticated, unlinkedTypes: null, hiddenTypes: null });
  const { schema, policy } = policyOf(row?.policy);
  check(policy, schema);
  const component = await componentOf(q, query, row, searchTypes(policy, query.authenticated).hiddenTypes);
  const declarations = (row?.types ?? []).map((t): IdTypeDeclaration =>
    canonicalDeclaration({ type: t.type, secure: t.secure === true, links: t.links, ...(t.maxHolders !== null ? { maxHolders: t.maxHolders } : {}) }),
  );
  return { component, policy, declarations };
}

function reach(
  q: Query,
  query: Omit<GraphQuery, 'hiddenTypes' | 'unlinkedTypes'>,
  types: { authenticated: boolean; unlinkedTypes: string[] | null; hiddenTypes: string[] | null },
): Promise<GraphRow | undefined> {
  return q<GraphRow>(GRAPH_STATEMENTS[query.step], {
    ...startParams(query.customerId, query.key, query.where),
    ...types,
    maxNodes: int(query.maxNodes),
    maxIds: int(query.maxIds),
    answerBytes: query.answerRoom ? int(query.answerRoom.freeBytes) : null,
  }).then(([row]) => row);
}

/** The nodes answered, as cutGraph chooses them, with their IDs: those of the statement, or read once room is taken. */
async function componentOf(
  q: Query,
  query: Pick<GraphQuery, 'maxNodes' | 'maxIds' | 'answerNodes' | 'exclude' | 'answerRoom'>,
  row: GraphRow | undefined,
  hiddenTypes: string[],
): Promise<GraphComponent> {
  if ((row?.visited ?? 0) > query.maxNodes) {
    throw new DomainError('component_too_large', `The search would visit more than ${query.maxNodes} nodes; narrow it (step ONE, or another start).`);
  }
  if ((row?.idsRead ?? 0) > query.maxIds) throw tooManyIdsToRead(query.maxIds);
  // A node deleted after the traversal reached it and before its properties were read has none: it is gone, as one
  // deleted before the traversal is, and is left out, as graph.ids leaves one out below. Neo4j reads each property
  // when it comes to it, so a delete that commits between two of them leaves only the later ones null.
  const reached = row?.nodes ?? [];
  const candidates = reached.flatMap((n): Array<GraphCandidate<string>> =>
    n.schema === null || n.keyType === null || n.keyId === null
      ? []
      : [
          {
            ref: n.ref,
            // ONE: the start nodes, then the nodes sharing an ID with one of them.
            level: n.level ?? (n.start ? 0 : 1),
            start: n.start,
            schemaId: n.schema,
            key: { type: n.keyType, id: n.keyId },
            idCount: n.idCount,
            idChars: n.idChars,
          },
        ],
  );
  const { chosen, truncated } = cutGraph(candidates, { ...query, hiddenTypes });
  if (chosen.length === 0) return { nodes: [], truncated };
  // A node whose IDs the statement read none of was deleted meanwhile, as graph.ids would leave it out.
  let idsOf = new Map(reached.flatMap((n) => (n.ids === null || n.ids.length === 0 ? [] : [[n.ref, n.ids] as const])));
  if (!row?.withIds) {
    // Room for the answer before its IDs are read (graph.ids).
    const size = graphAnswerSize(
      chosen.map((c) => ({ ...c, idChars: c.idChars ?? 0 })),
      hiddenTypes,
    );
    if (query.answerRoom && size > query.answerRoom.freeBytes) query.answerRoom.take(size);
    idsOf = new Map((await q<{ ref: string; ids: IdPair[] }>('graph.ids', { nodes: chosen.map((c) => c.ref) })).map((r) => [r.ref, r.ids]));
  }
  const nodes = chosen.flatMap((c) => {
    const ids = idsOf.get(c.ref);
    return ids === undefined ? [] : [{ schemaId: c.schemaId, key: c.key, ids: ids.map((id) => ({ type: id.type, id: id.id })) }];
  });
  return { nodes, truncated };
}
