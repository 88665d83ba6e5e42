// Who is calling. Customer routes read `Authorization: Bearer …` into res.locals.caller; the delivery routes read
// X-SERVICE-MAPI-TOKEN into res.locals.customerId, and _eligible and _impression read Authorization too (a `user` of a
// secure type needs a bearer token beside the mapi token). A header that is present but malformed, unknown or
// revoked is 401 on every endpoint that reads it, even where no token is needed. Each header is resolved once per
// request: the rate limiter, which runs before the routes, and the route's own check share the answer (one store lookup).
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { DomainError } from '../domain/errors';
import type { Caller, TokenService } from '../domain/tokens';
import type { TokenLookup } from '../domain/ports/tokens';
import type { TokenKind } from '../domain/model';

const BEARER = /^Bearer +(\S+) *$/i;

/** Each header's caller, once resolved (a failure is remembered too). */
type Identifications = Partial<Record<TokenKind, Promise<Caller>>>;

async function identify(tokens: TokenService, req: Request, kind: TokenKind, lookup: TokenLookup): Promise<Caller> {
  if (kind === 'mapi') return tokens.identify(req.get('x-service-mapi-token'), 'mapi', lookup);
  const header = req.get('authorization');
  if (header === undefined) return { kind: 'anonymous' };
  const match = BEARER.exec(header);
  if (!match) throw new DomainError('invalid_token', 'The Authorization header must be "Bearer <token>".');
  return tokens.identify(match[1], 'bearer');
}

/**
 * The caller named by the header `kind` reads, resolved at most once per request (a failure is remembered too); `lookup`
 * says how the first resolution may look the token up (TokenLookup).
 */
function identifyOnce(tokens: TokenService, req: Request, res: Response, kind: TokenKind, lookup: TokenLookup = {}): Promise<Caller> {
  const identifications = (res.locals.identifications ??= {}) as Identifications;
  return (identifications[kind] ??= identify(tokens, req, kind, lookup));
}

/**
 * Identifies the caller before the route runs, from the header the route will read (`headerOf`), and leaves the
 * outcome in res.locals.verifiedCaller for the rate limiter. Never refuses: a header that does not verify leaves
 * the caller anonymous here, and the route's own check answers 401 with the same error.
 */
export function identifyCaller(tokens: TokenService, headerOf: (req: Request) => TokenKind): RequestHandler {
  return async (req, res, next) => {
    let verified: Caller;
    try {
      verified = await identifyOnce(tokens, req, res, headerOf(req));
    } catch {
      verified = { kind: 'anonymous' };
    }
    res.locals.verifiedCaller = verified;
    next();
  };
}

export function bearerCaller(tokens: TokenService): RequestHandler {
  return async (req, res, next) => {
    res.locals.caller = await identifyOnce(tokens, req, res, 'bearer');
    next();
  };
}

/**
 * The delivery endpoints always need a mapi token in X-SERVICE-MAPI-TOKEN; it names the customer. `confirmed`: for a
 * route whose store call confirms the token itself (ShowingCaller.mapiToken), a recent lookup will do
 * (TokenLookup.recent), and res.locals.mapiToken holds the token's hash; the route then ends with freshTokenOnRefusal.
 */
export function mapiCustomer(tokens: TokenService, options: { confirmed?: boolean } = {}): RequestHandler {
  const lookup: TokenLookup = options.confirmed === true ? { recent: true } : {};
  return async (req, res, next) => {
    const caller = await identifyOnce(tokens, req, res, 'mapi', lookup);
    if (caller.kind === 'anonymous') throw new DomainError('authentication_required', 'Send a mapi token in X-SERVICE-MAPI-TOKEN.');
    if (caller.kind === 'admin') {
      throw new DomainError('forbidden', 'The administrator token names no customer; send a mapi token in X-SERVICE-MAPI-TOKEN.');
    }
    res.locals.customerId = caller.customerId;
    if (options.confirmed === true) res.locals.mapiToken = caller.tokenHash;
    next();
  };
}

/**
 * The last handler of a route taken with mapiCustomer `confirmed`: a refused request reads its mapi token afresh
 * first, and a token that no longer verifies answers its own error, so that a revoked token is 401 before any other
 * answer, as on the routes that read it. Only refused requests pay for the lookup.
 */
export function freshTokenOnRefusal(tokens: TokenService): ErrorRequestHandler {
  return async (err: unknown, req, res, next) => {
    if (res.locals.mapiToken !== undefined) {
      try {
        await tokens.identify(req.get('x-service-mapi-token'), 'mapi');
      } catch (fresh) {
        next(fresh);
        return;
      }
    }
    next(err);
  };
}

/** The hash of the mapi token a `confirmed` route was taken with (mapiCustomer). */
export const mapiTokenOf = (res: Response): string => res.locals.mapiToken as string;

export const callerOf = (res: Response): Caller => (res.locals.caller as Caller | undefined) ?? { kind: 'anonymous' };

/** What identifyCaller verified; anonymous when it did not run or the header did not verify. */
export const verifiedCallerOf = (res: Response): Caller => (res.locals.verifiedCaller as Caller | undefined) ?? { kind: 'anonymous' };
