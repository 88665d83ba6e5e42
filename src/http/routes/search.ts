// POST /v1/{customer_id}/_search
import { type RequestHandler, type Router } from 'express';
import type { SearchService } from '../../domain/search';
import { admitRead, answerRoomOf } from '../answer-memory';
import { operation, type Validators } from '../operation';
import { actorOf } from './node';
import { caseSensitiveRouter } from '../router';

export function searchRoutes(validators: Validators, bearer: RequestHandler, searches: SearchService): Router {
  const router = caseSensitiveRouter();
  router.post(
    '/v1/:customer_id/_search',
    bearer,
    operation(validators, 'search', async ({ params, body: search }, _req, res) => {
      const customerId = params.customer_id;
      await admitRead(res, { customerId, operation: 'search', step: search.match.step ?? 'ALL', from: search.match.from });
      const { results, total } = await searches.search(actorOf(res, customerId), search, answerRoomOf(res));
      res.status(200).json({ results, total });
    }),
  );
  return router;
}
