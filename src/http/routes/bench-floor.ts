// POST /floor, mounted only with BENCH_FLOOR_ROUTE: the bench's store floor. It runs the store's cheapest read
// (Store.floor) behind the same middleware as every route and answers the constant body the bench's Express floor
// answers, so that the two floors differ by the store's round trip alone.
import type { Router } from 'express';
import type { Store } from '../../domain/store';
import { caseSensitiveRouter } from '../router';

const CONSTANT = JSON.stringify({ results: [{ type: 'member_id', id: 'm-1' }], total: 1 });

export function benchFloorRoutes(store: Store): Router {
  const router = caseSensitiveRouter();
  router.post('/floor', async (_req, res) => {
    await store.floor();
    res.type('application/json').send(CONSTANT);
  });
  return router;
}
