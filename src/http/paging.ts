// The paging headers of a list (the delivery list, a node's history): RFC 8288 `link` with next, previous and prev
// (the same URL, for clients that know only one of the two names), and X-Total-Count.
import type { Response } from 'express';

/** `pageUrl(n)` is the absolute URL of page n with every other query parameter kept. */
export function setPageHeaders(res: Response, paging: { page: number; count: number; total: number; pageUrl: (page: number) => string }): void {
  const { page, count, total, pageUrl } = paging;
  const links: string[] = [];
  if (page * count < total) links.push(`<${pageUrl(page + 1)}>; rel="next"`);
  if (page > 1) links.push(`<${pageUrl(page - 1)}>; rel="previous"`, `<${pageUrl(page - 1)}>; rel="prev"`);
  if (links.length > 0) res.set('link', links.join(', '));
  res.set('X-Total-Count', String(total));
}
