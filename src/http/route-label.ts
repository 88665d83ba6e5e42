// The route a request is labelled with in the access log and the metrics: a template, never the values in it.
import type { Request, Response } from 'express';

/**
 * The matched route's path; for handlers that are not routes (the static files under /docs/), the template they
 * put in `res.locals.route`; otherwise `(unmatched)`.
 */
export function routeLabel(req: Request, res: Response): string {
  return (req.route as { path?: string } | undefined)?.path ?? (res.locals.route as string | undefined) ?? '(unmatched)';
}
