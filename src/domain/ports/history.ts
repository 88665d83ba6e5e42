// The port of history and erasure (docs/history-and-erasure.md). Every node write appends its entries in its own
// transaction (./node-writes.ts); these read them, erase values from the nodes and the entries, and prune them.
import type { EraseOutcome, EraseRequest, HistoryPage, IdPair } from '../model';

export interface HistoryStore {
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
}
