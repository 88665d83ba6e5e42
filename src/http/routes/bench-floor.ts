// POST /floor, mounted only with BENCH_FLOOR_ROUTE: the bench's store floor. It runs the store's cheapest read
// (StoreFloor.floor) behind the same middleware as every route and answers the constant body the bench's Express floor
// answers, so that the two floors differ by the store's round trip alone.
import type { Router } from 'express';
import { caseSensitiveRouter } from '../router';

const CONSTANT = JSON.stringify({ results: [{ type: 'member_id', id: 'm-1' }], total: 1 });

/** What the bench's floor route runs; no port of the domain has it, only the adapters (src/store/open.ts). */
export interface StoreFloor {
  /**
   * The cheapest statement through the path the store's reads take (Neo4j: its read transaction, session settings
   * and retries; SQLite: a prepared statement on the event loop), so that the store's own fixed cost of a request
   * can be told apart from what the service adds.
   */
  floor(): Promise<void>;
}

export function benchFloorRoutes(store: StoreFloor): Router {
  const router = caseSensitiveRouter();
  router.post('/floor', async (_req, res) => {
    await store.floor();
    res.type('application/json').send(CONSTANT);
  });
  return router;
}
