// The plain records the domain and every store exchange.
import type { BlockRule } from './blocklist';

import type { IdPair } from './id-pair';

export type { IdPair } from './id-pair';

export interface IdTypeDeclaration {
  type: string;
  secure: boolean;
  /**
   * false: IDs of this type are held, returned and usable as a search's `where`, but never link two nodes (ONE and
   * ALL do not step through them). Absent means true; stores return it only when false.
   */
  links?: boolean;
  /** At most this many nodes of the customer may hold one ID of this type; absent: no limit (and stores omit it). */
  maxHolders?: number;
}

/** A declaration as stores keep and return it: `links` only when false, `maxHolders` only when set. */
export const canonicalDeclaration = (t: IdTypeDeclaration): IdTypeDeclaration => ({
  type: t.type,
  secure: t.secure,
  ...(t.links === false ? { links: false } : {}),
  ...(t.maxHolders !== undefined && t.maxHolders !== null ? { maxHolders: t.maxHolders } : {}),
});

/** The options besides secure one type has per customer (docs/keeping-people-apart.md), defaults filled in. */
const optionsOf = (t: IdTypeDeclaration) => ({ links: t.links !== false, maxHolders: t.maxHolders ?? null });

/** Whether two declarations of a type agree on every option but secure (type_option_conflict otherwise). */
export const sameTypeOptions = (a: IdTypeDeclaration, b: IdTypeDeclaration): boolean =>
  optionsOf(a).links === optionsOf(b).links && optionsOf(a).maxHolders === optionsOf(b).maxHolders;

/** Whether two declarations of a type agree on every option, secure included. */
const sameDeclaration = (a: IdTypeDeclaration, b: IdTypeDeclaration): boolean => a.type === b.type && a.secure === b.secure && sameTypeOptions(a, b);

export interface SchemaRecord {
  schemaId: string;
  idTypes: IdTypeDeclaration[];
}

/** A node is addressed by its customer, schema and key. */
export interface NodeAddress {
  customerId: string;
  schemaId: string;
  key: IdPair;
  /**
   * What a write relies on: the schema's declarations of the types it uses, as the domain checked them. A store
   * applies the write only while the schema still declares each of them so, decided in the write's own
   * transaction, and refuses it with schema_changed otherwise; a schema replacement that drops a type then
   * either waits for the write (and sees its IDs: schema_in_use) or goes first (and the write is refused).
   */
  expectedTypes?: IdTypeDeclaration[];
  /**
   * NODE_MAX_IDS: a write that would make the node hold more IDs than this (its key included) is refused with
   * node_id_limit_reached and changes nothing; undefined: no limit. It travels with each write, as expectedTypes
   * does, rather than being a store option: the store decides it inside the write's transaction and needs no
   * configuration of its own, and one store serves every app that shares it (the tests do) with that app's limit.
   */
  maxIds?: number;
  /** Who writes, in which request: what the write's history entries name (docs/history-and-erasure.md). Absent: anonymous, no request. */
  audit?: WriteAudit;
}

/** Who made a write and in which request, as its history entries record them. */
export interface WriteAudit {
  requestId: string;
  /** `token:<token_id>`, `admin` or `anonymous`: never the token itself. */
  actor: string;
}

/** Who asks, for which customer; `authenticated` is settled by the HTTP layer from the token. */
export interface Actor {
  customerId: string;
  authenticated: boolean;
  /** What the history entries of the actor's writes name; absent: anonymous, no request id. */
  audit?: WriteAudit;
}

export type HistoryOp = 'create' | 'insert' | 'update' | 'upsert' | 'rekeying' | 'delete' | 'erase' | 'separate' | 'unseparate';

/** A node named by its schema and key, as a separation names each of its two nodes. */
export interface NodeRef {
  schemaId: string;
  key: IdPair;
}

/**
 * SeparationStore.separate: records that nodes `a` and `b` must never hold a common ID, after removing the IDs they share
 * from the side `removeSharedFrom` names (none: ids_shared while they share one).
 */
export interface SeparateRequest {
  customerId: string;
  a: NodeRef;
  b: NodeRef;
  removeSharedFrom: 'a' | 'b' | 'none';
  audit: WriteAudit;
}

/** A ban, its nodes in code-point order of schema, key type, key id. */
export interface Separation {
  a: NodeRef;
  b: NodeRef;
}

/** An ID as history shows it: its value, or null and `erased` once an erasure took the value away. */
export interface HistoryId {
  type: string;
  id: string | null;
  erased?: true;
}

/** One history entry (docs/history-and-erasure.md); the HTTP layer answers it as openapi.yaml's HistoryEntry. */
export interface HistoryEntry {
  at: string;
  requestId: string;
  actor: string;
  op: HistoryOp;
  schema: string;
  key: HistoryId;
  added: HistoryId[];
  removed: HistoryId[];
}

export interface HistoryPage {
  items: HistoryEntry[];
  total: number;
}

/** POST /v1/{customer_id}/_erase, checked: what a store erases in one atomic change (docs/history-and-erasure.md). */
export interface EraseRequest {
  customerId: string;
  id: IdPair;
  scope: 'id' | 'person';
  /** ID types declared `links: false`: a person's component is never stepped through them. */
  unlinkedTypes: string[];
  /** TRAVERSAL_MAX_NODES and TRAVERSAL_MAX_IDS: component_too_large past them, and nothing is erased. */
  maxNodes: number;
  maxIds: number;
  audit: WriteAudit;
}

export interface EraseOutcome {
  nodesDeleted: number;
  idsRemoved: number;
}

/** Whether `declared` (a schema's declarations now) still declares every expected type with all its options. */
export const declaresAsExpected = (declared: readonly IdTypeDeclaration[], expected: readonly IdTypeDeclaration[]): boolean =>
  expected.every((e) => declared.some((d) => sameDeclaration(d, e)));

export type TokenKind = 'bearer' | 'mapi';

export interface TokenRecord {
  tokenId: string;
  customerId: string;
  kind: TokenKind;
  label: string | null;
  createdAt: string;
}

export type Step = 'ONE' | 'ALL';

export interface SearchQuery {
  customerId: string;
  /** The keyed start node, when schema and key are given. */
  key?: { schemaId: string; key: IdPair };
  /** Every node holding this ID is a start node (restricted to `schemaId` when given). */
  where?: { schemaId?: string; id: IdPair };
  step: Step;
  exclude: boolean;
  havingType?: string;
  /** ID types whose values the caller may not see. */
  hiddenTypes: string[];
  /** ID types declared `links: false`: their IDs are read and returned, but the traversal never steps through them. */
  unlinkedTypes: string[];
  limit: number;
  /** Visiting more nodes than this fails with component_too_large. */
  maxNodes: number;
  /**
   * Reading more distinct IDs than this fails with component_too_large: the IDs held by the nodes the search
   * visits (start nodes and excluded ones included), hidden types included, since reading them costs the same.
   * A store stops reading once it has seen more, rather than reading them all first.
   */
  maxIds: number;
  /** Room for the answer, taken before it is built; none: the answer is built whatever its size. */
  answerRoom?: AnswerRoom;
}

/**
 * Room in RESPONSE_MEMORY_LIMIT for the answer of a search or graph (src/http/answer-memory.ts). A store counts
 * the answer's size from the lengths of the IDs it would answer (answerSize, graphAnswerSize), before it reads
 * their values, and takes room for it when it is larger than freeBytes.
 */
export interface AnswerRoom {
  /** An answer of at most this many bytes is always sent: it takes no room. */
  readonly freeBytes: number;
  /** Takes room for an answer of `bytes`, or throws server_busy (503: retry) or answer_too_large (422: never fits). */
  take(bytes: number): void;
}

/** The longest ID type and ID value (openapi.yaml, IdType and IdValue), in characters. */
export const MAX_ID_CHARS = 64 + 1024;
/** `{"type":"","id":""},`: what an ID adds to an answer beside its type and value. */
export const ID_OVERHEAD = 20;

/**
 * The size a search answer is counted at before it is built, in characters of its JSON: from the number of
 * distinct IDs it would answer and the characters of their types and values (`idChars`, without ID_OVERHEAD).
 * Past `limit` IDs, the answer holds `limit` of them: counted at most as long as the longest. Both stores count
 * alike, so that they refuse alike.
 */
export const answerSize = (ids: number, idChars: number, limit: number): number =>
  32 + (ids <= limit ? ID_OVERHEAD * ids + idChars : Math.min(ID_OVERHEAD * ids + idChars, limit * (ID_OVERHEAD + MAX_ID_CHARS)));

export interface SearchResult {
  results: IdPair[];
  total: number;
  /** How many nodes the traversal visited (for metrics; not part of the response). */
  visitedNodes: number;
}

/** A customer's settings (docs/keeping-people-apart.md). */
export interface CustomerSettings {
  /** Every search and node operation of the customer needs its bearer token (or the administrator's). */
  requireToken: boolean;
  /** IANA time-zone name: the calendar day of per-day delivery caps. */
  timezone: string;
}

export const DEFAULT_SETTINGS: CustomerSettings = { requireToken: false, timezone: 'UTC' };

/** What every search and node write of a customer is checked against, read in one go. */
export interface CustomerPolicy {
  settings: CustomerSettings;
  blockRules: BlockRule[];
  /** Types declared secure by any schema of the customer. */
  secureTypes: Set<string>;
  /** Types declared `links: false` by any schema of the customer. */
  unlinkedTypes: Set<string>;
}

export const sameId = (a: IdPair, b: IdPair): boolean => a.type === b.type && a.id === b.id;

/**
 * One string per distinct ID, for sets and maps of IDs: a type never holds a space (IdType's pattern), so the first
 * space ends it. Cheaper than JSON.stringify([type, id]), which every ID of every bulk line paid for twice.
 */
export const idKey = (id: IdPair): string => `${id.type} ${id.id}`;

/** Distinct IDs, in the order given (each first occurrence kept). */
export function uniqueIds(ids: readonly IdPair[]): IdPair[] {
  const unique = new Map<string, IdPair>();
  for (const id of ids) {
    const key = idKey(id);
    if (!unique.has(key)) unique.set(key, id);
  }
  return [...unique.values()];
}
