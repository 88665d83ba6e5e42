// The port of the separations: two nodes that must never hold a common ID. Every node write that adds IDs to a node
// answers separated_nodes, and writes nothing, when a node it is separated from holds one of them; concurrent writes
// never leave a separated pair sharing an ID. A ban follows its nodes through rekeyings and goes with either node.
import type { NodeRef, SeparateRequest, Separation, WriteAudit } from '../model';

export interface SeparationStore {
  /** node_not_found for either node; ids_shared (removeSharedFrom 'none'); answers how many IDs it removed. */
  separate(request: SeparateRequest): Promise<{ idsRemoved: number }>;
  /** node_not_found for either node; separation_not_found when the pair is not separated. */
  unseparate(customerId: string, a: NodeRef, b: NodeRef, audit: WriteAudit): Promise<void>;
  /** The customer's bans, ordered by their first node, then second (code-point order of schema, key type, key id). */
  listSeparations(customerId: string, offset: number, limit: number): Promise<{ items: Separation[]; total: number }>;
}
