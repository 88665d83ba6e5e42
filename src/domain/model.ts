// The plain records the domain and every store exchange.

/** One identifier: a (type, id) pair. */
export interface IdPair {
  type: string;
  id: string;
}

export interface IdTypeDeclaration {
  type: string;
  secure: boolean;
}

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
}

/** Whether `declared` (a schema's declarations now) still declares every expected type with its secure flag. */
export const declaresAsExpected = (declared: readonly IdTypeDeclaration[], expected: readonly IdTypeDeclaration[]): boolean =>
  expected.every((e) => declared.some((d) => d.type === e.type && d.secure === e.secure));

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
  limit: number;
  /** Visiting more nodes than this fails with component_too_large. */
  maxNodes: number;
  /**
   * Reading more distinct IDs than this fails with component_too_large: the IDs held by the nodes the search
   * visits (start nodes and excluded ones included), hidden types included, since reading them costs the same.
   * A store stops reading once it has seen more, rather than reading them all first.
   */
  maxIds: number;
}

export interface SearchResult {
  results: IdPair[];
  total: number;
  /** How many nodes the traversal visited (for metrics; not part of the response). */
  visitedNodes: number;
}

export const sameId = (a: IdPair, b: IdPair): boolean => a.type === b.type && a.id === b.id;
