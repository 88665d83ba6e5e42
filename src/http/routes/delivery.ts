// GET/POST /v1/delivery, GET/PUT/DELETE /v1/delivery/{delivery_id}, and showing messages (POST
// /v1/delivery/_eligible and /v1/delivery/{delivery_id}/_impression), for the customer the mapi token names. The two
// showing calls also read a bearer token in Authorization: a `user` of a secure type needs one of that customer.
import { type ErrorRequestHandler, type RequestHandler, type Response, type Router } from 'express';
import type { DeliveryService } from '../../domain/deliveries';
import type { ShowingCaller, ShowingService } from '../../domain/showing';
import { authenticatedFor } from '../../domain/tokens';
import { callerOf, mapiTokenOf } from '../auth';
import { deliveryBody, draftOf, eligibilityBody, impressionBody } from '../delivery-bodies';
import { defaulted, operation, type Validators } from '../operation';
import { setPageHeaders } from '../paging';
import { publicBase } from '../public-url';
import { caseSensitiveRouter } from '../router';

const customerOf = (res: Response): string => res.locals.customerId as string;

/** Whether Authorization holds a bearer token of the mapi token's customer (or the administrator token); 403 for another customer's. */
const bearerOfCustomer = (res: Response): boolean => authenticatedFor(callerOf(res), customerOf(res));

/** Who asks _eligible or _impression: the mapi token's customer, any bearer token, and the mapi token's hash. */
const showingCaller = (res: Response): ShowingCaller => ({ customerId: customerOf(res), authenticated: bearerOfCustomer(res), mapiToken: mapiTokenOf(res) });

/**
 * The mapi token's checks: `mapi` for the routes that use the token only to name the customer; `confirmed` for the
 * showing calls, whose store call confirms the token itself, with `onRefusal`, which reads it afresh when one is refused.
 */
export interface MapiChecks {
  mapi: RequestHandler;
  confirmed: RequestHandler;
  onRefusal: ErrorRequestHandler;
}

export function deliveryRoutes(
  validators: Validators,
  { mapi, confirmed, onRefusal }: MapiChecks,
  bearer: RequestHandler,
  services: { deliveries: DeliveryService; showing: ShowingService },
  publicBaseUrl: string | undefined,
): Router {
  const router = caseSensitiveRouter();
  const { deliveries, showing } = services;

  router.get(
    '/v1/delivery',
    mapi,
    operation(validators, 'listDeliveries', async ({ query }, req, res) => {
      const count = defaulted(query.count, 'count');
      const page = defaulted(query.page, 'page');
      const base = publicBase(req, publicBaseUrl);
      const { items, total } = await deliveries.list(customerOf(res), page, count);
      setPageHeaders(res, { page, count, total, pageUrl: (n) => `${base}/v1/delivery?count=${count}&page=${n}` });
      res.json(items.map(deliveryBody));
    }),
  );
  router.post(
    '/v1/delivery',
    mapi,
    operation(validators, 'createDelivery', async ({ body }, req, res) => {
      // Before the write: a request that cannot be answered changes nothing.
      const base = publicBase(req, publicBaseUrl);
      const created = await deliveries.create(customerOf(res), draftOf(body));
      res.status(201).location(`${base}/v1/delivery/${created.deliveryId}`).json(deliveryBody(created));
    }),
  );
  router.get(
    '/v1/delivery/:delivery_id',
    mapi,
    operation(validators, 'getDelivery', async ({ params }, _req, res) => {
      res.json(deliveryBody(await deliveries.get(customerOf(res), params.delivery_id)));
    }),
  );
  router.put(
    '/v1/delivery/:delivery_id',
    mapi,
    operation(validators, 'replaceDelivery', async ({ params, body }, _req, res) => {
      res.json(deliveryBody(await deliveries.replace(customerOf(res), params.delivery_id, draftOf(body))));
    }),
  );
  router.delete(
    '/v1/delivery/:delivery_id',
    mapi,
    operation(validators, 'deleteDelivery', async ({ params }, _req, res) => {
      await deliveries.delete(customerOf(res), params.delivery_id);
      res.status(204).end();
    }),
  );
  router.post(
    '/v1/delivery/_eligible',
    confirmed,
    bearer,
    operation(validators, 'deliveryEligibility', async ({ body }, _req, res) => {
      res.json(eligibilityBody(await showing.eligible(showingCaller(res), body)));
    }),
    onRefusal,
  );
  router.post(
    '/v1/delivery/:delivery_id/_impression',
    confirmed,
    bearer,
    operation(validators, 'recordImpression', async ({ params, body }, _req, res) => {
      const deliveryId = params.delivery_id;
      const { answer, replayed } = await showing.impression(showingCaller(res), deliveryId, body);
      // The header Stripe's API uses to say so: this is an earlier answer, and nothing was counted.
      if (replayed) res.set('Idempotent-Replayed', 'true');
      res.status(201).json(impressionBody(answer));
    }),
    onRefusal,
  );
  return router;
}
