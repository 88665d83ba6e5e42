// The explorer (docs/explorer.md): POST /v1/{customer_id}/_graph, what it draws, and GET /explore, the page, whose
// files `npm run build` bundles from explorer/ into dist/explorer/ (explorer/build.mjs).
import path from 'node:path';
import express, { type RequestHandler, type Router } from 'express';
import { DomainError } from '../../domain/errors';
import type { GraphService } from '../../domain/graph';
import { admitRead, answerRoomOf } from '../answer-memory';
import { operation, type Validators } from '../operation';
import { caseSensitiveRouter } from '../router';
import { actorOf } from './node';

/** dist/explorer at the project root: three levels up from src/http/routes (ts-jest) and from dist/http/routes. */
export const EXPLORER_DIR = path.resolve(__dirname, '..', '..', '..', 'dist', 'explorer');

export function explorerRoutes(validators: Validators, bearer: RequestHandler, graphs: GraphService, explorerDir = EXPLORER_DIR): Router {
  // Strict, so that '/explore' (the page) and '/explore/' (a folder of assets) are different routes.
  const router = caseSensitiveRouter({ strict: true });
  router.post(
    '/v1/:customer_id/_graph',
    bearer,
    operation(validators, 'graph', async ({ params, body: graph }, _req, res) => {
      const customerId = params.customer_id;
      await admitRead(res, { customerId, operation: 'graph', step: graph.match.step ?? 'ALL', from: graph.match.from });
      res.status(200).json(await graphs.graph(actorOf(res, customerId), graph, answerRoomOf(res)));
    }),
  );
  router.get('/explore', (_req, res, next) => {
    res.sendFile('index.html', { root: explorerDir }, (error) => {
      if (error === undefined) return;
      next(res.headersSent ? error : new DomainError('not_found', 'The explorer page is not built: run npm run build.'));
    });
  });
  router.use(
    '/explore/',
    (_req, res, next) => {
      // Not a route, so logs and metrics would call these requests unmatched.
      res.locals.route = '/explore/:asset';
      next();
    },
    express.static(explorerDir, { index: false, redirect: false }),
  );
  return router;
}
