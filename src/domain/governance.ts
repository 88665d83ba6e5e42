// History and erasure (docs/history-and-erasure.md): who may read a node's history or erase a person, and what an erase is
// bounded by. The stores do the work, each in one transaction.
import { DomainError } from './errors';
import { type EraseOutcome, type HistoryPage, type IdPair, type NodeRef, sameId, type Separation, type WriteAudit } from './model';
import { type Caller, requireCustomerToken } from './tokens';
import type { HistoryStore } from './ports/history';
import type { ProtectionStore } from './ports/protections';
import type { SeparationStore } from './ports/separations';

export interface HistoryQuery {
  schema: string;
  key_type: string;
  key_id: string;
  count: number;
  page: number;
}

export interface EraseBody {
  id: IdPair;
  scope?: 'id' | 'person';
}

/** A node of a separation, as the API names it. */
export interface SeparatedNodeBody {
  schema: string;
  key: IdPair;
}

export interface SeparateBody {
  nodes: SeparatedNodeBody[];
  remove_shared_from: 'A' | 'B' | 'none';
}

const nodeRef = (n: SeparatedNodeBody): NodeRef => ({ schemaId: n.schema, key: { type: n.key.type, id: n.key.id } });

/** The pair the body names (validated: two items); validation_failed when both name one node. */
function pairOf(nodes: SeparatedNodeBody[]): [NodeRef, NodeRef] {
  const [a, b] = nodes.map(nodeRef) as [NodeRef, NodeRef];
  if (a.schemaId === b.schemaId && sameId(a.key, b.key)) {
    throw new DomainError('validation_failed', 'The request body is invalid.', [{ path: '/nodes/1', message: 'names the same node as /nodes/0' }]);
  }
  return [a, b];
}

export interface EraseLimits {
  traversalMaxNodes: number;
  traversalMaxIds: number;
}

export class GovernanceService {
  constructor(
    private readonly store: HistoryStore & SeparationStore & Pick<ProtectionStore, 'customerPolicy'>,
    private readonly limits: EraseLimits,
  ) {}

  history(caller: Caller, customerId: string, query: HistoryQuery): Promise<HistoryPage> {
    requireCustomerToken(caller, customerId);
    const key = { type: query.key_type, id: query.key_id };
    return this.store.nodeHistory(customerId, query.schema, key, (query.page - 1) * query.count, query.count);
  }

  async erase(caller: Caller, customerId: string, body: EraseBody, audit: WriteAudit): Promise<EraseOutcome> {
    requireCustomerToken(caller, customerId);
    const { unlinkedTypes } = await this.store.customerPolicy(customerId);
    return this.store.erase({
      customerId,
      id: body.id,
      scope: body.scope ?? 'id',
      unlinkedTypes: [...unlinkedTypes],
      maxNodes: this.limits.traversalMaxNodes,
      maxIds: this.limits.traversalMaxIds,
      audit,
    });
  }

  /** POST _separate: the customer's token always, as an erase. */
  separate(caller: Caller, customerId: string, body: SeparateBody, audit: WriteAudit): Promise<{ idsRemoved: number }> {
    requireCustomerToken(caller, customerId);
    const [a, b] = pairOf(body.nodes);
    const removeSharedFrom = body.remove_shared_from === 'A' ? 'a' : body.remove_shared_from === 'B' ? 'b' : 'none';
    return this.store.separate({ customerId, a, b, removeSharedFrom, audit });
  }

  unseparate(caller: Caller, customerId: string, nodes: SeparatedNodeBody[], audit: WriteAudit): Promise<void> {
    requireCustomerToken(caller, customerId);
    const [a, b] = pairOf(nodes);
    return this.store.unseparate(customerId, a, b, audit);
  }

  separations(caller: Caller, customerId: string, page: number, count: number): Promise<{ items: Separation[]; total: number }> {
    requireCustomerToken(caller, customerId);
    return this.store.listSeparations(customerId, (page - 1) * count, count);
  }
}
