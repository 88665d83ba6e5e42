// History and erasure (extensions §3): who may read a node's history or erase a person, and what an erase is
// bounded by. The stores do the work, each in one transaction.
import type { EraseOutcome, HistoryPage, IdPair, WriteAudit } from './model';
import { type Caller, requireCustomerToken } from './tokens';
import type { Store } from './store';

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

export interface EraseLimits {
  traversalMaxNodes: number;
  traversalMaxIds: number;
}

export class GovernanceService {
  constructor(
    private readonly store: Store,
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
}
