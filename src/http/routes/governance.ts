// GET /v1/{customer_id}/node/_history and POST /v1/{customer_id}/_erase (docs/history-and-erasure.md).
import { type RequestHandler, type Router } from 'express';
import type { GovernanceService } from '../../domain/governance';
import { actorName } from '../../domain/tokens';
import { callerOf } from '../auth';
import { defaulted, operation, type Validators } from '../operation';
import { setPageHeaders } from '../paging';
import { publicBase } from '../public-url';
import { historyEntryBody, separatedNodeBody } from '../history-bodies';
import { caseSensitiveRouter } from '../router';

export function governanceRoutes(validators: Validators, bearer: RequestHandler, governance: GovernanceService, publicBaseUrl: string | undefined): Router {
  const router = caseSensitiveRouter();
  router.get(
    '/v1/:customer_id/node/_history',
    bearer,
    operation(validators, 'nodeHistory', async ({ params, query }, req, res) => {
      const q = { ...query, count: defaulted(query.count, 'count'), page: defaulted(query.page, 'page') };
      const customerId = params.customer_id;
      // Before the read: a request that cannot be answered reads nothing.
      const base = publicBase(req, publicBaseUrl);
      const { items, total } = await governance.history(callerOf(res), customerId, q);
      // The delivery list's links, keeping the query that names the key.
      const pageUrl = (n: number) => {
        const search = new URLSearchParams({ schema: q.schema, key_type: q.key_type, key_id: q.key_id, count: String(q.count), page: String(n) });
        return `${base}/v1/${encodeURIComponent(customerId)}/node/_history?${search.toString()}`;
      };
      setPageHeaders(res, { page: q.page, count: q.count, total, pageUrl });
      res.json(items.map(historyEntryBody));
    }),
  );
  router.post(
    '/v1/:customer_id/_erase',
    bearer,
    operation(validators, 'eraseId', async ({ params, body }, _req, res) => {
      const caller = callerOf(res);
      const audit = { requestId: String(res.locals.requestId ?? ''), actor: actorName(caller) };
      const outcome = await governance.erase(caller, params.customer_id, body, audit);
      res.json({ nodes_deleted: outcome.nodesDeleted, ids_removed: outcome.idsRemoved });
    }),
  );
  router.post(
    '/v1/:customer_id/_separate',
    bearer,
    operation(validators, 'separateNodes', async ({ params, body }, _req, res) => {
      const caller = callerOf(res);
      const audit = { requestId: String(res.locals.requestId ?? ''), actor: actorName(caller) };
      const outcome = await governance.separate(caller, params.customer_id, body, audit);
      res.json({ ids_removed: outcome.idsRemoved });
    }),
  );
  router.delete(
    '/v1/:customer_id/_separate',
    bearer,
    operation(validators, 'unseparateNodes', async ({ params, body }, _req, res) => {
      const caller = callerOf(res);
      const audit = { requestId: String(res.locals.requestId ?? ''), actor: actorName(caller) };
      await governance.unseparate(caller, params.customer_id, body.nodes, audit);
      res.json({});
    }),
  );
  router.get(
    '/v1/:customer_id/_separate',
    bearer,
    operation(validators, 'listSeparations', async ({ params, query }, req, res) => {
      const count = defaulted(query.count, 'count');
      const page = defaulted(query.page, 'page');
      const customerId = params.customer_id;
      const base = publicBase(req, publicBaseUrl);
      const { items, total } = await governance.separations(callerOf(res), customerId, page, count);
      const pageUrl = (n: number) => `${base}/v1/${encodeURIComponent(customerId)}/_separate?count=${count}&page=${n}`;
      setPageHeaders(res, { page, count, total, pageUrl });
      res.json(items.map((s) => ({ nodes: [separatedNodeBody(s.a), separatedNodeBody(s.b)] })));
    }),
  );
  return router;
}
