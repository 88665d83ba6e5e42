// The absolute URLs the service writes into `link` and `Location`: PUBLIC_BASE_URL, or else the request's own
// scheme and Host header. A Host is used only when it is a host [":" port] of RFC 3986, so it cannot close the
// `<…>` of a link entry and add entries of its own; whatever is used is percent-encoded where a URI may not
// hold it as is.
import { isIPv6 } from 'node:net';
import type { Request } from 'express';
import { DomainError } from '../domain/errors';

/** reg-name (IPv4 included) or an IP literal, then an optional port. */
const HOST = /^(?:(?<regName>(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+)|\[(?<ipv6>[0-9A-Fa-f:.]+)\])(?::[0-9]{0,5})?$/;

export function isWellFormedHost(host: string): boolean {
  const match = HOST.exec(host);
  if (!match?.groups) return false;
  return match.groups.ipv6 === undefined || isIPv6(match.groups.ipv6);
}

/** What RFC 3986 allows unencoded in a URI (`%` included: pct-encoded triplets stay as they are). */
const NOT_IN_URI = /[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/gu;

const percentEncoded = (text: string): string =>
  text.replace(NOT_IN_URI, (c) => [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));

/**
 * The base of the absolute URLs answered to `req` (no trailing slash). Throws 400 malformed_request when it must
 * come from the request and the request has no Host (HTTP/1.0 allows that; a malformed one is refused earlier, by
 * wellFormedHost).
 */
export function publicBase(req: Request, configured: string | undefined): string {
  if (configured !== undefined) return percentEncoded(configured);
  const host = req.headers.host;
  if (host === undefined || !isWellFormedHost(host)) {
    throw new DomainError('malformed_request', 'Send a Host header (host[:port]): the answer carries absolute URLs.');
  }
  return percentEncoded(`${req.protocol}://${host}`);
}
