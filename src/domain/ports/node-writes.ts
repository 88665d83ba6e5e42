// The port of the node writes. The key is always one of the node's IDs. Every write that adds IDs answers
// holder_limit_reached, and writes nothing, when one more node would then hold an ID whose type's maxHolders
// (NodeAddress.expectedTypes) is reached; concurrent writes never pass the limit. It answers separated_nodes, and
// writes nothing, when a node the node is separated from (./separations.ts) holds one of them. Every write appends
// its history entries in its own transaction, naming NodeAddress.audit; a write that changes nothing appends none.
import type { DomainError } from '../errors';
import type { IdPair, NodeAddress } from '../model';

/** One node write, as the bulk endpoint batches them. */
export type NodeWrite =
  | { kind: 'create'; node: NodeAddress; ids: IdPair[] }
  | { kind: 'insert'; node: NodeAddress; ids: IdPair[] }
  | { kind: 'replace'; node: NodeAddress; where: IdPair; set: IdPair; upsert: boolean }
  | { kind: 'removeId'; node: NodeAddress; id: IdPair }
  | { kind: 'deleteNode'; node: NodeAddress };

export interface NodeWriteStore {
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
}
