// The ID search on Neo4j, with the SQLite store's semantics: the start nodes; then the nodes ONE or ALL reaches
// through shared IDs, as a Cypher path query that the planner runs as a pruning breadth-first expand
// (cypher/search.traverse-*.cypher say why they have their shape), at most maxNodes of them holding at most maxIds
// IDs, and in the same statement the distinct IDs of the targets, filtered in Cypher and grouped by type; sorted in
// code-point order, counted and cut here.
import { DomainError } from '../../domain/errors';
import { answerSize, type CustomerPolicy, type IdPair, type SchemaRecord, type SearchQuery, type SearchResult } from '../../domain/model';
import type { StartCheck, UncheckedSearch } from '../../domain/ports/identity-reads';
import { tooManyIdsToRead } from '../../domain/refusals';
import type { PolicyRow } from './neo4j-schemas';
import { compareCodePoints } from '../../domain/code-point-order';
import { Batcher } from './batcher';
import { int, type Query, rowsByAsk } from './query';
import type { StatementName } from './statements';
import { at } from '../../domain/invariant';

/**
 * What a traversal statement answers: how many nodes and Id vertices it reached (at most maxNodes + maxIds + 1 in
 * all), and the IDs the target nodes hold (none when either count is past its bound).
 */
interface Reached {
  visited: number;
  idsRead: number;
  /** How many IDs the answer has (the search's filters, no limit) and the characters of their types and values. */
  idCount: number;
  idChars: number;
  /**
   * The IDs grouped by type, a list of values each: one string per ID to decode rather than a map of four (none
   * when the answer is heavier than answerBytes).
   */
  ids: Array<{ type: string; ids: string[] }>;
}

export interface StartNodes {
  /** Element ids of the start nodes (at most maxNodes + 1 of them). */
  nodes: string[];
  /** The vertex a traversal starts from: the keyed node, or the Id vertex of the where condition. */
  source: string | undefined;
  fromId: boolean;
}

/** Runs inside one read transaction of the store. */
export async function searchGraph(q: Query, query: SearchQuery): Promise<SearchResult> {
  // The traversal gathers the IDs too (cypher/search.traverse-*.cypher): one statement, one round trip.
  const gather = {
    maxNodes: int(query.maxNodes),
    maxIds: int(query.maxIds),
    havingType: query.havingType ?? null,
    hiddenTypes: query.hiddenTypes,
    unlinkedTypes: query.unlinkedTypes,
  };
  // One more than allowed: reaching it proves the search too large without visiting the rest.
  const start = await startNodes(q, query, int(query.maxNodes + 1));
  if (start.nodes.length === 0) return { results: [], total: 0, visitedNodes: 0 };
  if (start.nodes.length > query.maxNodes) throw tooLarge(query);
  const traversal = traversalOf(start, query);
  const reach = { ...gather, excluded: query.exclude ? start.nodes : [] };
  return answered(query, async (answerBytes) =>
    checkedReach(query, (await q<Reached>(SEARCH_TRAVERSALS[traversal.shape], { ...traversal.from, ...reach, answerBytes }))[0]),
  );
}

/**
 * How many statements of searches of one step run at once; searches that arrive meanwhile wait, and go together.
 * Fewer make larger batches: at 10 concurrent searches ONE, 2 cost the service and Neo4j about a fifth less CPU a
 * search than 4 did (docs/decisions/0003-gather-concurrent-reads.md).
 */
export const SEARCH_STATEMENTS_AT_ONCE = 2;

/** Most searches one statement carries. */
const SEARCHES_PER_STATEMENT = 64;

/** What one search asks of search.one.cypher or search.all.cypher. */
interface SharedSearch {
  statement: StatementName;
  maxNodes: number;
  maxIds: number;
  params: Record<string, unknown>;
}

type SearchRow = (Reached & { policy: PolicyRow }) | undefined;

/** The statement of each step: both take a keyed start or a where start. */
const STEP_STATEMENTS = { ONE: 'search.one', ALL: 'search.all' } as const satisfies Record<SearchQuery['step'], StatementName>;

/**
 * IdentityReadStore.search: each search reads the customer's policy, finds its start nodes and traverses in one statement
 * (search.one.cypher, search.all.cypher). Searches that arrive while SEARCH_STATEMENTS_AT_ONCE statements of their
 * step are running wait, and then go together in one statement (UNWIND over them; ./batcher.ts): the fixed cost of a
 * statement (its round trip, and the driver's and Neo4j's work for each statement) is paid once for all of them. A
 * search that finds a statement free goes at once, alone; none waits for others to come. Searches share a statement
 * only with the same bounds, which are its LIMIT (a parameter, not a column). A statement that fails fails each of
 * its searches (the read has retried it first).
 */
export class SharedSearches {
  private readonly batcher: Batcher<SharedSearch, SearchRow>;

  constructor(private readonly read: <T>(work: (q: Query) => Promise<T>) => Promise<T>) {
    this.batcher = new Batcher<SharedSearch, SearchRow>({
      together: (searches) => this.together(searches),
      partition: (search) => JSON.stringify([search.statement, search.maxNodes, search.maxIds]),
      // Slots by statement: searches of step ALL, which may take long, never hold up those of step ONE.
      lane: (search) => search.statement,
      slots: slotsOf,
      perBatch: SEARCHES_PER_STATEMENT,
    });
  }

  async search(
    query: UncheckedSearch,
    check: StartCheck,
    policyOf: (row: PolicyRow | undefined) => { schema: SchemaRecord | undefined; policy: CustomerPolicy },
  ): Promise<SearchResult> {
    const statement = STEP_STATEMENTS[query.step];
    const params = {
      ...startParams(query.customerId, query.key, query.where),
      exclude: query.exclude,
      authenticated: query.authenticated,
      havingType: query.havingType ?? null,
    };
    let checked = false;
    return answered(query, async (answerBytes) => {
      const row = await this.batcher.ask({ statement, maxNodes: query.maxNodes, maxIds: query.maxIds, params: { ...params, answerBytes } });
      if (!checked) {
        const { schema, policy } = policyOf(row?.policy);
        check(policy, schema);
        checked = true;
      }
      return checkedReach(query, row);
    });
  }

  /** Searches of one statement and bounds in one statement: each customer's policy (with the schema searched) read once, and sent back with its first search. */
  private async together(batch: SharedSearch[]): Promise<Array<PromiseSettledResult<SearchRow>>> {
    const { statement, maxNodes, maxIds } = at(batch, 0);
    const policyIndexes = new Map<string, number>();
    const searches = batch.map((search, index) => {
      const policy = JSON.stringify([search.params.customer, search.params.schema]);
      const sendsPolicy = !policyIndexes.has(policy);
      if (sendsPolicy) policyIndexes.set(policy, policyIndexes.size);
      return { ...search.params, index: int(index), policyIndex: int(policyIndexes.get(policy) as number), sendsPolicy };
    });
    const policies = [...policyIndexes.keys()].map((policy, index) => {
      const [customer, schema] = JSON.parse(policy) as [string, string];
      return { index: int(index), customer, schema };
    });
    const rows = await this.read((q) =>
      q<Reached & { policy: PolicyRow | null; index: number }>(statement, { policies, searches, maxNodes: int(maxNodes), maxIds: int(maxIds) }),
    );
    const byIndex = rowsByAsk(rows, batch.length);
    const policyOf = (index: number) => Number(searches[index]?.policyIndex);
    const read = new Map(rows.flatMap((row) => (row.policy ? [[policyOf(Number(row.index)), row.policy] as const] : [])));
    return batch.map((_, index) => {
      const [row] = byIndex[index] ?? [];
      return { status: 'fulfilled', value: row && { ...row, policy: read.get(policyOf(index)) as PolicyRow } };
    });
  }
}

/**
 * How many statements of `statement` may run now. A search ALL may traverse a large component for tens of
 * milliseconds: while searches ONE are running or waiting, one statement of step ALL at a time leaves the other
 * core to them (on two cores, a mix of both answered a fifth more searches ONE, with a p99 a tenth lower).
 */
function slotsOf(statement: string, active: (statement: string) => boolean): number {
  if (statement !== STEP_STATEMENTS.ALL) return SEARCH_STATEMENTS_AT_ONCE;
  return active(STEP_STATEMENTS.ONE) ? 1 : SEARCH_STATEMENTS_AT_ONCE;
}

const tooLarge = (query: Pick<SearchQuery, 'maxNodes'>) =>
  new DomainError('component_too_large', `The search would visit more than ${query.maxNodes} nodes; narrow it (step ONE, or another start).`);

/** The traversal's row, unless it went past the search's bounds. */
function checkedReach(query: Pick<SearchQuery, 'maxNodes' | 'maxIds'>, row: Reached | undefined): Reached | undefined {
  if ((row?.visited ?? 0) > query.maxNodes) throw tooLarge(query);
  if ((row?.idsRead ?? 0) > query.maxIds) throw tooManyIdsToRead(query.maxIds);
  return row;
}

/**
 * The answer of a search whose traversal statement `traverse` runs, with the IDs withheld past `answerBytes` (null:
 * none). Past the answer's free room its IDs stay in Neo4j until room is taken for them; then the same statement
 * runs again for them.
 */
async function answered(
  query: Pick<SearchQuery, 'answerRoom' | 'limit'>,
  traverse: (answerBytes: unknown) => Promise<Reached | undefined>,
): Promise<SearchResult> {
  let row = await traverse(query.answerRoom ? int(query.answerRoom.freeBytes) : null);
  if (row && query.answerRoom && row.idCount > 0 && row.ids.length === 0) {
    // Withheld: room for what the answer will hold (its limit included), then the same statement for the IDs.
    const size = answerSize(row.idCount, row.idChars, query.limit);
    if (size > query.answerRoom.freeBytes) query.answerRoom.take(size);
    row = await traverse(null);
  }
  // By type, then by value, both in code-point order; only the first `limit` become IdPairs.
  const results: IdPair[] = [];
  let total = 0;
  for (const group of [...(row?.ids ?? [])].sort((a, b) => compareCodePoints(a.type, b.type))) {
    total += group.ids.length;
    if (results.length >= query.limit) continue;
    for (const id of [...group.ids].sort(compareCodePoints)) {
      if (results.length >= query.limit) break;
      results.push({ type: group.type, id });
    }
  }
  return { results, total, visitedNodes: row?.visited ?? 0 };
}

/**
 * The three shapes a traversal from start nodes takes (cypher/search.traverse-*.cypher), each with the parameters
 * naming where it starts.
 */
export type Traversal =
  | { shape: 'all'; from: { source: string | undefined; holdersSchema: string | null } }
  | { shape: 'oneFromId'; from: { source: string | undefined } }
  | { shape: 'one'; from: { starts: string[] } };

const SEARCH_TRAVERSALS = { all: 'search.traverse-all', oneFromId: 'search.traverse-one-from-id', one: 'search.traverse-one' } as const;

/** Which traversal a search from `start` takes (search.one.cypher and graph.one.cypher choose in the same way). */
export function traversalOf(start: StartNodes, query: Pick<SearchQuery, 'step' | 'where' | 'unlinkedTypes'>): Traversal {
  if (query.step === 'ALL') {
    // Every start node lies in the component of the source, so one traversal from it reaches them all; but the
    // holders of an ID that links nothing share no component through it, and when a schema picks some of them as
    // the start nodes, the traversal steps from the ID to those alone (holdersSchema), still once for all of them.
    const unlinkedWhere = start.fromId && query.where?.schemaId !== undefined && query.unlinkedTypes.includes(query.where.id.type);
    return { shape: 'all', from: { source: start.source, holdersSchema: unlinkedWhere ? (query.where?.schemaId ?? null) : null } };
  }
  // The start nodes are all the holders of the ID: one traversal from its Id vertex.
  if (start.fromId && query.where?.schemaId === undefined) return { shape: 'oneFromId', from: { source: start.source } };
  return { shape: 'one', from: { starts: start.nodes } };
}

export async function startNodes(q: Query, query: Pick<SearchQuery, 'customerId' | 'key' | 'where'>, cap: unknown): Promise<StartNodes> {
  if (query.key) {
    const rows = await q<{ start: string }>('search.start-by-key', startParams(query.customerId, query.key, query.where));
    return { nodes: rows.map((r) => r.start), source: rows[0]?.start, fromId: false };
  }
  if (query.where) {
    const [row] = await q<{ source: string; starts: string[] }>('search.start-by-where', {
      customer: query.customerId,
      type: query.where.id.type,
      value: query.where.id.id,
      schema: query.where.schemaId ?? null,
      cap,
    });
    return { nodes: row?.starts ?? [], source: row?.source, fromId: true };
  }
  return { nodes: [], source: undefined, fromId: false };
}

/**
 * The parameters naming a search's start (search.start-by-key.cypher, search.one.cypher, search.all.cypher, and the
 * explorer's graph.one.cypher and graph.all.cypher): a keyed node, with the where condition it must hold when given;
 * or, without a key, the holders of the where ID (of its schema, when it names one).
 */
export const startParams = (customer: string, key: SearchQuery['key'], where: SearchQuery['where']) => ({
  customer,
  schema: key?.schemaId ?? where?.schemaId ?? null,
  keyType: key?.key.type ?? null,
  keyId: key?.key.id ?? null,
  whereType: where?.id.type ?? null,
  whereValue: where?.id.id ?? null,
});
