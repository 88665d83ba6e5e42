// Liveness and readiness.
import { Router } from 'express';
import { DomainError } from '../../domain/errors';
import type { Store } from '../../store/store';
import { operation, type Validators } from '../operation';

export function healthRoutes(validators: Validators, store: Store, isShuttingDown: () => boolean): Router {
  const router = Router();
  router.get(
    '/healthz',
    operation(validators, 'healthz', (_input, _req, res) => {
      res.json({ status: 'ok' });
    }),
  );
  router.get(
    '/readyz',
    operation(validators, 'readyz', async (_input, _req, res) => {
      if (isShuttingDown()) throw new DomainError('store_unavailable', 'The service is shutting down.');
      await store.ping();
      res.json({ status: 'ready' });
    }),
  );
  return router;
}
