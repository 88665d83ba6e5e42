// applyNodeWrites for a store that has no cheaper way than one transaction per write.
import { type DomainError, isDomainError } from '../domain/errors';
import type { NodeWrite, Store } from './store';

export async function applyOneByOne(store: Store, writes: NodeWrite[]): Promise<Array<DomainError | undefined>> {
  const outcomes: Array<DomainError | undefined> = [];
  for (const w of writes) {
    try {
      switch (w.kind) {
        case 'create':
          await store.createNode(w.node, w.ids);
          break;
        case 'insert':
          await store.insertIds(w.node, w.ids);
          break;
        case 'replace':
          await store.replaceId(w.node, w.where, w.set, w.upsert);
          break;
        case 'removeId':
          await store.removeId(w.node, w.id);
          break;
        case 'deleteNode':
          await store.deleteNode(w.node);
          break;
      }
      outcomes.push(undefined);
    } catch (e) {
      if (!isDomainError(e) || e.code === 'store_unavailable') throw e;
      outcomes.push(e);
    }
  }
  return outcomes;
}
