// POST /v1/{customer_id}/_why
import { type RequestHandler, type Router } from 'express';
import type { WhyService } from '../../domain/why';
import { operation, type Validators } from '../operation';
import { actorOf } from './node';
import { caseSensitiveRouter } from '../router';

export function whyRoutes(validators: Validators, bearer: RequestHandler, whys: WhyService): Router {
  const router = caseSensitiveRouter();
  router.post(
    '/v1/:customer_id/_why',
    bearer,
    operation(validators, 'why', async ({ params, body }, _req, res) => {
      res.status(200).json(await whys.why(actorOf(res, params.customer_id), body));
    }),
  );
  return router;
}
