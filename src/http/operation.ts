// Binds a route to its operation in openapi.yaml: the request is validated against the contract before the
// handler runs, and the customer is recorded for the access log.
import type { Request, RequestHandler, Response } from 'express';
import type { RequestParts, RequestValidator } from './openapi';

export type Validators = Map<string, RequestValidator>;

export function operation(
  validators: Validators,
  operationId: string,
  handler: (input: RequestParts, req: Request, res: Response) => Promise<void> | void,
): RequestHandler {
  const validate = validators.get(operationId);
  if (!validate) throw new Error(`openapi.yaml has no operation '${operationId}'`);
  return async (req, res) => {
    const input = validate({ params: { ...req.params }, query: { ...(req.query as object) }, body: req.body });
    res.locals.operationId = operationId;
    const customerId = (input.params as { customer_id?: string }).customer_id;
    if (customerId !== undefined) res.locals.customerId = customerId;
    await handler(input, req, res);
  };
}
