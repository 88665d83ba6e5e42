// The port every store implements (src/store/sqlite/, src/store/neo4j/), owned by the domain that uses it: nothing
// under src/domain/ imports from src/store/. Each write is one atomic transaction; rule violations that only the
// store can see (a key already in use, an ID already held) come back as DomainErrors with their codes.
import type { Delivery, DeliveryDraft, DeliveryPage, EligibilityState, ImpressionOutcome, ImpressionRequest, PersonRequest } from './deliveries';
import type { DomainError } from './errors';
import type { GraphComponent, GraphQuery } from './graph';
import type { WhyFound, WhyQuery } from './why';
import type { BlockRule } from './blocklist';
import {
  type CustomerPolicy,
  type CustomerSettings,
  type EraseOutcome,
  type EraseRequest,
  type HistoryPage,
  type IdPair,
  type IdTypeDeclaration,
  type NodeAddress,
  type SchemaRecord,
  type NodeRef,
  type SearchQuery,
  type SearchResult,
  type SeparateRequest,
  type Separation,
  type TokenRecord,
  type WriteAudit,
} from './model';

/** How a node write (not a rekey) reads its policy (Store.schemaWithPolicy): what the store kept, or afresh to keep. */
export type KeptPolicyUse = 'answer' | 'renew';

/** What a node write is checked against (Store.schemaWithPolicy). */
export interface SchemaWithPolicy {
  schema: SchemaRecord | undefined;
  policy: CustomerPolicy;
  /** Present when the answer is one the store kept: it may be out of date, and a write checked against it must carry this. */
  mark?: string;
}

export interface StoredToken extends TokenRecord {
  tokenHash: string;
}

/** One node write, as the bulk endpoint batches them. */
export type NodeWrite =
  | { kind: 'create'; node: NodeAddress; ids: IdPair[] }
  | { kind: 'insert'; node: NodeAddress; ids: IdPair[] }
  | { kind: 'replace'; node: NodeAddress; where: IdPair; set: IdPair; upsert: boolean }
  | { kind: 'removeId'; node: NodeAddress; id: IdPair }
  | { kind: 'deleteNode'; node: NodeAddress };

export interface PutSchemaOutcome {
  created: boolean;
}

export interface Store {
  /** Resolves when the store answers; rejects with store_unavailable otherwise. */
  ping(): Promise<void>;
  /**
   * The cheapest statement through the path the store's reads take (Neo4j: its read transaction, session settings
   * and retries; SQLite: a prepared statement on the event loop). Only the bench's floor route calls it, so that the
   * store's own fixed cost a request can be told apart from what the service adds (BENCH_FLOOR_ROUTE).
   */
  floor(): Promise<void>;
  close(): Promise<void>;

  // Schemas. putSchema refuses, in this order: (secure_flag_conflict) a type whose secure flag differs in another
  // schema of the customer; (type_option_conflict) one whose links or maxHolders differ there; (secure_type_in_use)
  // turning a type's secure flag off while a node of the customer holds an ID of it; (schema_in_use) dropping a
  // type that nodes of the schema still hold.
  putSchema(customerId: string, schema: SchemaRecord): Promise<PutSchemaOutcome>;
  getSchema(customerId: string, schemaId: string): Promise<SchemaRecord | undefined>;
  listSchemas(customerId: string): Promise<SchemaRecord[]>;
  /** schema_not_found when absent; schema_in_use while it has nodes. */
  deleteSchema(customerId: string, schemaId: string): Promise<void>;
  /** What every search and node write of the customer is checked against: settings, blocked values, type options. */
  customerPolicy(customerId: string): Promise<CustomerPolicy>;
  /** customerPolicy and whether the customer has any schema, read together: what a bulk request is admitted on. */
  customerAdmission(customerId: string): Promise<{ policy: CustomerPolicy; hasSchema: boolean }>;
  /**
   * customerPolicy for `_eligible` and `_impression`, whose reads of the person's counts check it again: as for
   * schemaWithPolicy, a store may answer what it kept ('answer') or read afresh and keep that ('renew'), with a
   * `mark` that the PersonRequest carries (PersonRequest.policyMark).
   */
  showingPolicy(customerId: string, kept: KeptPolicyUse): Promise<{ policy: CustomerPolicy; mark?: string }>;
  /**
   * A schema (undefined when absent) and the customer's policy, read together: what a node write is checked against.
   * For a node write but a rekey, a store may keep what it read: with `kept: 'answer'` it may answer what it kept
   * of an earlier read, and with `kept: 'renew'` it reads afresh and keeps that. Such an answer carries a `mark`,
   * which a write checked against it carries too (NodeAddress.policyMark), for the store to refuse it should the
   * policy have changed meanwhile.
   */
  schemaWithPolicy(customerId: string, schemaId: string, options?: { kept?: KeptPolicyUse }): Promise<SchemaWithPolicy>;

  // Customer settings and blocked values; each put replaces what was stored and answers it.
  putSettings(customerId: string, settings: CustomerSettings): Promise<CustomerSettings>;
  /** The stored rules, checked by the domain before they are put; [] when none. */
  putBlocklist(customerId: string, rules: BlockRule[]): Promise<BlockRule[]>;

  // Tokens, stored only as hashes.
  createToken(token: StoredToken): Promise<void>;
  listTokens(customerId: string): Promise<TokenRecord[]>;
  /** false when no active token of that id exists for the customer. */
  revokeToken(customerId: string, tokenId: string): Promise<boolean>;
  findActiveToken(tokenHash: string): Promise<StoredToken | undefined>;

  // Nodes. The key is always one of the node's IDs.
  // Every write that adds IDs answers holder_limit_reached, and writes nothing, when one more node would then hold
  // an ID whose type's maxHolders (NodeAddress.expectedTypes) is reached; concurrent writes never pass the limit.
  /** node_exists when the key is taken. `ids` holds no duplicates and may contain the key. */
  createNode(node: NodeAddress, ids: IdPair[]): Promise<void>;
  /** node_not_found; id_exists (naming the first held ID) and nothing added when any ID is held. */
  insertIds(node: NodeAddress, ids: IdPair[]): Promise<void>;
  /**
   * Replaces the held `where` with `set` (node_not_found; id_exists when `set` is held already).
   * When `where` is not held: nothing, or with `upsert` adds `set` unless held.
   */
  replaceId(node: NodeAddress, where: IdPair, set: IdPair, upsert: boolean): Promise<void>;
  /**
   * The key becomes (key.type, newId) as key and as held ID. node_not_found; node_exists when taken;
   * holder_limit_reached as a write adding newId would.
   */
  rekey(node: NodeAddress, newId: string): Promise<void>;
  /**
   * node_not_found; removing an ID that is not held changes nothing. schema_changed when the write was checked
   * against a kept policy (NodeAddress.policyMark) and the policy or the schema has changed since.
   */
  removeId(node: NodeAddress, id: IdPair): Promise<void>;
  /** node_not_found; schema_changed as for removeId. */
  deleteNode(node: NodeAddress): Promise<void>;
  /**
   * Applies the writes in order, each atomically on its own, with the same outcomes as the single methods:
   * the DomainError a write was refused with, or undefined. A refused write changes nothing and does not stop
   * the others. Rejects only when the store itself fails.
   */
  applyNodeWrites(writes: NodeWrite[]): Promise<Array<DomainError | undefined>>;
  // Separations: two nodes that must never hold a common ID. Every write above that adds IDs to a node answers
  // separated_nodes, and writes nothing, when a node it is separated from holds one of them; concurrent writes never
  // leave a separated pair sharing an ID. A ban follows its nodes through rekeyings and goes with either node.
  /** node_not_found for either node; ids_shared (removeSharedFrom 'none'); answers how many IDs it removed. */
  separate(request: SeparateRequest): Promise<{ idsRemoved: number }>;
  /** node_not_found for either node; separation_not_found when the pair is not separated. */
  unseparate(customerId: string, a: NodeRef, b: NodeRef, audit: WriteAudit): Promise<void>;
  /** The customer's bans, ordered by their first node, then second (code-point order of schema, key type, key id). */
  listSeparations(customerId: string, offset: number, limit: number): Promise<{ items: Separation[]; total: number }>;
  /** The IDs the node holds, sorted by type then id; undefined when the node does not exist. */
  getNodeIds(node: NodeAddress): Promise<IdPair[] | undefined>;

  search(query: SearchQuery): Promise<SearchResult>;
  /**
   * A search whose start is checked against the customer's policy and the start's schema (key's or where's),
   * read with it: `check` throws the refusal. The search hides and steps through the types the policy says
   * (searchTypes in ./search.ts). What a store may do in one read: on Neo4j, from a keyed node, one statement.
   */
  checkedSearch(query: UncheckedSearch, check: StartCheck): Promise<SearchResult>;
  /**
   * The explorer's read (docs/explorer.md), in one read: the nodes the search of `query` reaches (component_too_large
   * past its bounds, as the search), cut by cutGraph to what is answered, each with every ID it holds.
   */
  graph(query: GraphQuery): Promise<GraphComponent>;
  /**
   * The explorer's read with its start checked against the customer's policy and the start's schema, read with it:
   * `check` throws the refusal before anything of the graph is used. The graph hides and steps through the types
   * the policy says (searchTypes in ./search.ts). Answers the policy, and the declarations of the types the answer's
   * nodes hold. On Neo4j, one statement when the answer fits the room every request may use.
   */
  checkedGraph(query: UncheckedGraph, check: StartCheck): Promise<CheckedGraph>;
  /**
   * `_why` (./why.ts): which start no node holds, or the chain, smallest by compareChains among the shortest within
   * WHY_SEARCH_HOPS, never through an unlinked type; component_too_large past maxNodes nodes or maxIds IDs visited.
   */
  why(query: WhyQuery): Promise<WhyFound>;
  /**
   * `_why` with its starts checked against the customer's policy and their schemas, read with it: `check` throws
   * the refusal before anything of the search is used, and the search never steps through the types the policy
   * declares `links: false`. Answers the policy it was checked against. On Neo4j, one statement.
   */
  checkedWhy(query: UncheckedWhy, check: WhyCheck): Promise<CheckedWhy>;

  // History and erasure (docs/history-and-erasure.md). Every node write above appends its entries in its own
  // transaction, naming NodeAddress.audit; a write that changes nothing appends none.
  /** The entries found under a node key (a rekeying's under both keys), newest first; [] for an unknown key. */
  nodeHistory(customerId: string, schemaId: string, key: IdPair, offset: number, limit: number): Promise<HistoryPage>;
  /**
   * One atomic change: the ID (scope id) or the person's component (scope person) goes from the nodes, its values
   * from every history entry, and each node it changed gets an erase entry. component_too_large, and nothing
   * erased, past request.maxNodes or maxIds.
   */
  erase(request: EraseRequest): Promise<EraseOutcome>;
  /** Deletes up to `limit` of the oldest entries written before `before` (an ISO instant); answers how many it deleted. */
  pruneHistory(before: string, limit: number): Promise<number>;

  // Deliveries, per customer, ordered by delivery_id. The store assigns delivery_id, condition_id and
  // message ids (never reused) and keeps the count fields.
  listDeliveries(customerId: string, offset: number, limit: number): Promise<DeliveryPage>;
  getDelivery(customerId: string, deliveryId: number): Promise<Delivery | undefined>;
  createDelivery(customerId: string, draft: DeliveryDraft): Promise<Delivery>;
  /** undefined when the customer has no such delivery. Keeps ids, counts and the message ids sent back. */
  replaceDelivery(customerId: string, deliveryId: number, draft: DeliveryDraft): Promise<Delivery | undefined>;
  /**
   * false when the customer has no such delivery. Its impressions and idempotency keys stay stored, unread, until
   * sweepDeletedDeliveries deletes them: nothing reads them, since every read starts from a delivery and a
   * customer's delivery ids are never given out twice.
   */
  deleteDelivery(customerId: string, deliveryId: number): Promise<boolean>;

  // Showing messages (docs/deliveries.md). Impressions are counted per delivery and per ID they were recorded against,
  // by calendar day; a person's counts are the sums over the IDs of its component. An erase removes the
  // impressions of every value it erases.
  /**
   * The customer's deliveries, in delivery_id order, split by `showable` (the rules that need no counts): those it
   * accepts with their live counts, the others as stored; and when any is showable, the person's counts (on `day`)
   * of each delivery they saw, read together. component_too_large past the person's bounds.
   */
  eligibility(person: PersonRequest, day: string, showable?: (delivery: Delivery) => boolean): Promise<EligibilityState>;
  /**
   * One atomic change: delivery_not_found when the customer has no such delivery; the earlier answer, counting
   * nothing, when the idempotency key was used for this delivery; else the impression is counted, unless counting
   * it would pass a cap of the delivery, judged on its live counts and the person's (refuseOverCap in ./showing.ts
   * throws cap_reached, and nothing is counted). Impressions of one delivery are applied one at a time, so
   * concurrent ones never pass a cap.
   */
  recordImpression(request: ImpressionRequest): Promise<ImpressionOutcome>;
  /** Deletes up to `limit` idempotency keys stored before `before` (an ISO instant); answers how many it deleted. */
  pruneImpressionKeys(before: string, limit: number): Promise<number>;
  /**
   * Deletes up to `limit` of what deleted deliveries left (of any customer), in one transaction: each one's
   * impression counts, then its idempotency keys, then the mark that it has some left. Answers how many it deleted;
   * fewer than `limit` when nothing is left.
   */
  sweepDeletedDeliveries(limit: number): Promise<number>;
}

/** A search before its start is checked: whether the caller has a token, where SearchQuery has the types it hides. */
export type UncheckedSearch = Omit<SearchQuery, 'hiddenTypes' | 'unlinkedTypes'> & { authenticated: boolean };

/** The explorer's read before its start is checked: whether the caller has a token, where GraphQuery has the types it hides. */
export type UncheckedGraph = Omit<GraphQuery, 'hiddenTypes' | 'unlinkedTypes'> & { authenticated: boolean };

/** What Store.checkedGraph answers: the graph, the policy it was checked against, and the declarations of the types its nodes hold. */
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

/** What Store.checkedWhy answers: the search's outcome, and the policy it was checked against. */
export interface CheckedWhy {
  found: WhyFound;
  policy: CustomerPolicy;
}
