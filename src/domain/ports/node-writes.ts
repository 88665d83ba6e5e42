// The port of the node writes. The key is always one of the node's IDs. Every write that adds IDs answers
// holder_limit_reached, and writes nothing, when one more node would then hold an ID whose type's maxHolders
// (NodeAddress.expectedTypes) is reached; concurrent writes never pass the limit. It answers separated_nodes, and
// writes nothing, when a node the node is separated from (./separations.ts) holds one of them. Every write appends
// its history entries in its own transaction, naming NodeAddress.audit; a write that changes nothing appends none.
//
// The domain's writes carry their rules as a pure check (CheckedNode): the store runs it against the node's schema
// and the customer's policy and writes the address it answers, or answers what it throws; how it reads them, and
// that the check still holds when the write commits, is the store's business (docs/architecture.md).
import type { DomainError } from '../errors';
import type { CustomerPolicy, IdPair, NodeAddress, SchemaRecord } from '../model';

/** What a node write is checked against: its schema (undefined when absent) and the customer's policy. */
export interface SchemaWithPolicy {
  schema: SchemaRecord | undefined;
  policy: CustomerPolicy;
}

/**
 * A node write as the domain asks for it: `check` holds every rule of the customer the write must pass (a required
 * token, the schema and its types, secure types, blocked values). It is pure and synchronous: it answers the address
 * to write, with the declarations it relied on (NodeAddress.expectedTypes), or throws the refusal. A store answers
 * the write as if `check` ran against the schema and policy of the moment the write commits.
 */
export interface CheckedNode {
  customerId: string;
  schemaId: string;
  check: (read: SchemaWithPolicy) => NodeAddress;
}

/**
 * One node write, as the bulk endpoint batches them: to a CheckedNode, as the domain sends it, or, inside an adapter,
 * to the address its check answered (`N`).
 */
export type NodeWrite<N = CheckedNode> =
  | { kind: 'create'; node: N; ids: IdPair[] }
  | { kind: 'insert'; node: N; ids: IdPair[] }
  | { kind: 'replace'; node: N; where: IdPair; set: IdPair; upsert: boolean }
  | { kind: 'removeId'; node: N; id: IdPair }
  | { kind: 'deleteNode'; node: N };

export interface NodeWriteStore {
  /** node_exists when the key is taken. `ids` holds no duplicates and may contain the key. */
  createNode(node: CheckedNode, ids: IdPair[]): Promise<void>;
  /** node_not_found; id_exists (naming the first held ID) and nothing added when any ID is held. */
  insertIds(node: CheckedNode, ids: IdPair[]): Promise<void>;
  /**
   * Replaces the held `where` with `set` (node_not_found; id_exists when `set` is held already).
   * When `where` is not held: nothing, or with `upsert` adds `set` unless held.
   */
  replaceId(node: CheckedNode, where: IdPair, set: IdPair, upsert: boolean): Promise<void>;
  /**
   * The key becomes (key.type, newId) as key and as held ID. node_not_found; node_exists when taken;
   * holder_limit_reached as a write adding newId would.
   */
  rekey(node: CheckedNode, newId: string): Promise<void>;
  /** node_not_found; removing an ID that is not held changes nothing. */
  removeId(node: CheckedNode, id: IdPair): Promise<void>;
  /** node_not_found. */
  deleteNode(node: CheckedNode): Promise<void>;
  /**
   * Applies the writes in order, each atomically on its own, with the same outcomes as the single methods:
   * the DomainError a write was refused with, or undefined. A refused write changes nothing and does not stop
   * the others; a check refusal is the write's outcome. Rejects only when the store itself fails.
   */
  applyNodeWrites(writes: NodeWrite[]): Promise<Array<DomainError | undefined>>;
}
