// Liveness and readiness. They take no input and ignore any query string (load balancers add cache-busters).
import type { Router } from 'express';
import { DomainError } from '../../domain/errors';
import type { StoreLifecycle } from '../../domain/ports/lifecycle';
import { caseSensitiveRouter } from '../router';

export function healthRoutes(store: Pick<StoreLifecycle, 'ping'>, isShuttingDown: () => boolean): Router {
  const router = caseSensitiveRouter();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (isShuttingDown()) throw new DomainError('store_unavailable', 'The service is shutting down.');
    await store.ping();
    res.json({ status: 'ready' });
  });
  return router;
}
