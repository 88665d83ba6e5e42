// The identity reads (src/domain/ports/identity-reads.ts) for a store whose reads cost no round trip (SQLite): the
// customer's policy and the start's schema are read first and checked by the request's own check, then the traversal
// runs with the types the policy says to hide and never step through. A store that reads the policy in the read's
// own statement (Neo4j) does not use these.
import type {
  GraphComponent,
  GraphQuery,
  GraphRequest,
  CheckedGraph,
  CheckedWhy,
  SearchRequest,
  WhyFound,
  WhyQuery,
  WhyRequest,
  WhyStart,
} from '../domain/ports/identity-reads';
import type { ProtectionStore } from '../domain/ports/protections';
import type { CustomerPolicy, SearchQuery, SearchResult } from '../domain/model';
import { searchTypes } from '../domain/search';
import { maskedFor } from '../domain/why';

/** The traversals with the types they hide and never step through given, not read: what the checked reads run. */
export interface TraversalReads {
  searchWithTypes(query: SearchQuery): Promise<SearchResult>;
  graphWithTypes(query: GraphQuery): Promise<GraphComponent>;
  whyWithTypes(query: WhyQuery): Promise<WhyFound>;
}

type PolicyReads = Pick<ProtectionStore, 'customerPolicy' | 'schemaWithPolicy'>;

/** The customer's policy, with the start's schema when it names one, checked by `check`. */
async function checkedPolicy(
  store: PolicyReads,
  start: Pick<SearchQuery, 'customerId' | 'key' | 'where'>,
  check: SearchRequest['check'],
): Promise<CustomerPolicy> {
  const schemaId = start.key?.schemaId ?? start.where?.schemaId;
  const { schema, policy } =
    schemaId === undefined
      ? { schema: undefined, policy: await store.customerPolicy(start.customerId) }
      : await store.schemaWithPolicy(start.customerId, schemaId);
  check(policy, schema);
  return policy;
}

/** IdentityReadStore.search as two reads: the policy (with the start's schema), checked, then the search. */
export async function checkThenSearch(store: TraversalReads & PolicyReads, request: SearchRequest): Promise<SearchResult> {
  const { authenticated, check, ...search } = request;
  const policy = await checkedPolicy(store, search, check);
  return store.searchWithTypes({ ...search, ...searchTypes(policy, authenticated) });
}

/**
 * IdentityReadStore.graph as reads in turn: the policy (with the start's schema), checked, then the graph, then,
 * when it has nodes, the declarations of the customer's types.
 */
export async function checkThenGraph(store: TraversalReads & PolicyReads & Pick<ProtectionStore, 'listSchemas'>, request: GraphRequest): Promise<CheckedGraph> {
  const { authenticated, check, ...graph } = request;
  const policy = await checkedPolicy(store, graph, check);
  const component = await store.graphWithTypes({ ...graph, ...searchTypes(policy, authenticated) });
  const declarations = component.nodes.length === 0 ? [] : (await store.listSchemas(graph.customerId)).flatMap((s) => s.idTypes);
  return { component, policy, declarations };
}

/**
 * IdentityReadStore.why as reads in turn: the policy (with each start's schema, once when both name the same or
 * none), checked, then the search.
 */
export async function checkThenWhy(store: TraversalReads & PolicyReads, request: WhyRequest): Promise<CheckedWhy> {
  const { authenticated, check, ...search } = request;
  const read = (schemaId: string | undefined) =>
    schemaId === undefined
      ? store.customerPolicy(search.customerId).then((policy) => ({ schema: undefined, policy }))
      : store.schemaWithPolicy(search.customerId, schemaId);
  const schemaOf = (start: WhyStart) => start.key?.schemaId ?? start.where?.schemaId;
  const fromRead = await read(schemaOf(search.from));
  const toRead = schemaOf(search.to) === schemaOf(search.from) ? fromRead : await read(schemaOf(search.to));
  check(fromRead.policy, fromRead.schema, toRead.schema);
  const { policy } = fromRead;
  return { found: await store.whyWithTypes({ ...search, unlinkedTypes: [...policy.unlinkedTypes], maskedTypes: maskedFor(authenticated, policy) }), policy };
}
