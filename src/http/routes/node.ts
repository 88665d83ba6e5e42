// The six node operations of the interface: POST /v1/{customer_id}/node/_<operation>.
import { type RequestHandler, type Response, type Router } from 'express';
import type { Actor, NodeService } from '../../domain/nodes';
import { actorName, authenticatedFor } from '../../domain/tokens';
import { callerOf } from '../auth';
import { operation, type Validators } from '../operation';
import { caseSensitiveRouter } from '../router';

export function actorOf(res: Response, customerId: string): Actor {
  const caller = callerOf(res);
  return {
    customerId,
    authenticated: authenticatedFor(caller, customerId),
    audit: { requestId: String(res.locals.requestId ?? ''), actor: actorName(caller) },
  };
}

export function nodeRoutes(validators: Validators, bearer: RequestHandler, nodes: NodeService): Router {
  const router = caseSensitiveRouter();
  router.post(
    '/v1/:customer_id/node/_create',
    bearer,
    operation(validators, 'createNode', async ({ params, body }, _req, res) => {
      await nodes.create(actorOf(res, params.customer_id), body);
      res.status(201).json({});
    }),
  );
  router.post(
    '/v1/:customer_id/node/_insert',
    bearer,
    operation(validators, 'insertIds', async ({ params, body }, _req, res) => {
      await nodes.insert(actorOf(res, params.customer_id), body);
      res.status(201).json({});
    }),
  );
  router.post(
    '/v1/:customer_id/node/_update',
    bearer,
    operation(validators, 'updateId', async ({ params, body }, _req, res) => {
      await nodes.replace(actorOf(res, params.customer_id), body, false);
      res.status(200).json({});
    }),
  );
  router.post(
    '/v1/:customer_id/node/_upsert',
    bearer,
    operation(validators, 'upsertId', async ({ params, body }, _req, res) => {
      await nodes.replace(actorOf(res, params.customer_id), body, true);
      res.status(200).json({});
    }),
  );
  router.post(
    '/v1/:customer_id/node/_rekeying',
    bearer,
    operation(validators, 'rekeyNode', async ({ params, body }, _req, res) => {
      await nodes.rekey(actorOf(res, params.customer_id), body);
      res.status(200).json({});
    }),
  );
  router.post(
    '/v1/:customer_id/node/_delete',
    bearer,
    operation(validators, 'deleteNode', async ({ params, body }, _req, res) => {
      await nodes.delete(actorOf(res, params.customer_id), body);
      res.status(204).end();
    }),
  );
  return router;
}
