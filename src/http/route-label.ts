// The route a request is labelled with in the access log and the metrics: a template, never the values in it.
import type { Request, Response } from 'express';

/**
 * The matched route's path; for handlers that are not routes (the static files under /docs/), the template they
 * put in `res.locals.route`; otherwise `(unmatched)`.
 */
export function routeLabel(req: Request, res: Response): string {
  const route: unknown = req.route;
  const path: unknown = typeof route === 'object' && route !== null && 'path' in route ? route.path : undefined;
  if (typeof path === 'string') return path;
  const template: unknown = res.locals.route;
  return typeof template === 'string' ? template : '(unmatched)';
}
