// The port of the reads of the identity graph: the search, the explorer's graph and `_why`, and their records.
import type { AnswerRoom, CustomerPolicy, IdPair, IdTypeDeclaration, SchemaRecord, SearchQuery, SearchResult } from '../model';

/** What a store reads for IdentityReadStore.graph: a search's start, step and bounds, and how much to answer. */
export interface GraphQuery extends Pick<
  SearchQuery,
  'customerId' | 'key' | 'where' | 'step' | 'exclude' | 'hiddenTypes' | 'unlinkedTypes' | 'maxNodes' | 'maxIds'
> {
  /** max_nodes: the most nodes answered. */
  answerNodes: number;
  /** Room for the answer, taken before the IDs of the answered nodes are read (graphAnswerSize). */
  answerRoom?: AnswerRoom;
}

/** A node as a store answers it: every ID it holds, the key included, in no particular order. */
export interface GraphNodeRecord {
  schemaId: string;
  key: IdPair;
  ids: IdPair[];
}

export interface GraphComponent {
  nodes: GraphNodeRecord[];
  /** Some reached node is not answered (past answerNodes, or past maxIds IDs answered). */
  truncated: boolean;
}

export interface ChainNode {
  schemaId: string;
  key: IdPair;
}

/** nodes[i] and nodes[i + 1] both hold vias[i]; nodes.length === vias.length + 1. */
export interface Chain {
  nodes: ChainNode[];
  vias: IdPair[];
}

export type WhyStart = Pick<SearchQuery, 'key' | 'where'>;

export interface WhyQuery {
  customerId: string;
  from: WhyStart;
  to: WhyStart;
  /** ID types that link nothing: never a via. */
  unlinkedTypes: string[];
  /** Visiting more nodes than this fails with component_too_large. */
  maxNodes: number;
  /** Reading more distinct IDs than this fails with component_too_large. */
  maxIds: number;
  /**
   * Types whose values the caller may not see (the secure types, for a caller without a token): for the tie rule,
   * their values compare equal (compareChains). Absent: none.
   */
  maskedTypes?: string[];
}

/** What a store answers: which start holds no node, or the smallest shortest chain within WHY_SEARCH_HOPS (none: undefined). */
export type WhyFound = { missing: 'from' | 'to' } | { missing?: undefined; chain: Chain | undefined };

/** A search before its start is checked: whether the caller has a token, where SearchQuery has the types it hides. */
export type UncheckedSearch = Omit<SearchQuery, 'hiddenTypes' | 'unlinkedTypes'> & { authenticated: boolean };

/** The explorer's read before its start is checked: whether the caller has a token, where GraphQuery has the types it hides. */
export type UncheckedGraph = Omit<GraphQuery, 'hiddenTypes' | 'unlinkedTypes'> & { authenticated: boolean };

/** What IdentityReadStore.graph answers: the graph, the policy it was checked against, and the declarations of the types its nodes hold. */
export interface CheckedGraph {
  component: GraphComponent;
  policy: CustomerPolicy;
  /** One a type (a type has one declaration a customer), of at least every type the answer's nodes hold. */
  declarations: IdTypeDeclaration[];
}

/** Throws the refusal of a search's start, given the customer's policy and the start's schema (undefined: absent or not named). */
export type StartCheck = (policy: CustomerPolicy, schema: SchemaRecord | undefined) => void;

/** A `_why` before its starts are checked: whether the caller has a token, where WhyQuery has the types it never steps through. */
export type UncheckedWhy = Omit<WhyQuery, 'unlinkedTypes'> & { authenticated: boolean };

/** Throws the refusal of a `_why`'s starts, given the customer's policy and each start's schema (undefined: absent or not named). */
export type WhyCheck = (policy: CustomerPolicy, fromSchema: SchemaRecord | undefined, toSchema: SchemaRecord | undefined) => void;

/** What IdentityReadStore.why answers: the search's outcome, and the policy it was checked against. */
export interface CheckedWhy {
  found: WhyFound;
  policy: CustomerPolicy;
}

/** A search as the domain asks it: its start and bounds, whether the caller has a token, and the rules of its start. */
export interface SearchRequest extends UncheckedSearch {
  /** Runs on the policy the search is checked against, before anything of the search is used. */
  check: StartCheck;
}

/** The explorer's read as the domain asks it, with the rules of its start. */
export interface GraphRequest extends UncheckedGraph {
  /** Runs on the policy the graph is checked against, before anything of the graph is used. */
  check: StartCheck;
}

/** A `_why` as the domain asks it, with the rules of its starts. */
export interface WhyRequest extends UncheckedWhy {
  /** Runs on the policy the search is checked against, before anything of the search is used. */
  check: WhyCheck;
}

/**
 * Each read checks its start against the customer's policy and the start's schema, read with it (on Neo4j, in the
 * read's own statement; on SQLite, just before it): `check` throws the refusal. The read then hides and steps
 * through the types the policy says (searchTypes in ../search.ts; maskedFor in ../why.ts).
 */
export interface IdentityReadStore {
  /** The search, within its bounds (component_too_large past them). On Neo4j, from a keyed node, one statement. */
  search(request: SearchRequest): Promise<SearchResult>;
  /**
   * The explorer's read (docs/explorer.md): the nodes the search of `request` reaches (component_too_large past its
   * bounds, as the search), cut by cutGraph to what is answered, each with every ID it holds. Answers the policy,
   * and the declarations of the types the answer's nodes hold. On Neo4j, one statement when the answer fits the
   * room every request may use.
   */
  graph(request: GraphRequest): Promise<CheckedGraph>;
  /**
   * `_why` (../why.ts): which start no node holds, or the chain, smallest by compareChains among the shortest within
   * WHY_SEARCH_HOPS, never through a type the policy declares `links: false`; component_too_large past maxNodes
   * nodes or maxIds IDs visited. Answers the policy it was checked against. On Neo4j, one statement.
   */
  why(request: WhyRequest): Promise<CheckedWhy>;
}
