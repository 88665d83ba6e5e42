// Reads `Authorization: Bearer …` into res.locals.caller. A header that is present but malformed, unknown or
// revoked is 401 on every endpoint, even where no token is needed.
import type { RequestHandler, Response } from 'express';
import { DomainError } from '../domain/errors';
import type { Caller, TokenService } from '../domain/tokens';

const BEARER = /^Bearer +(\S+) *$/i;

export function bearerCaller(tokens: TokenService): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
    let secret: string | undefined;
    if (header !== undefined) {
      const match = BEARER.exec(header);
      if (!match) throw new DomainError('invalid_token', 'The Authorization header must be "Bearer <token>".');
      secret = match[1];
    }
    res.locals.caller = await tokens.identify(secret, 'bearer');
    next();
  };
}

/** The delivery endpoints always need a mapi token in X-SERVICE-MAPI-TOKEN; it names the customer. */
export function mapiCustomer(tokens: TokenService): RequestHandler {
  return async (req, res, next) => {
    const caller = await tokens.identify(req.get('x-service-mapi-token'), 'mapi');
    if (caller.kind === 'anonymous') throw new DomainError('authentication_required', 'Send a mapi token in X-SERVICE-MAPI-TOKEN.');
    if (caller.kind === 'admin') {
      throw new DomainError('forbidden', 'The administrator token names no customer; send a mapi token in X-SERVICE-MAPI-TOKEN.');
    }
    res.locals.customerId = caller.customerId;
    next();
  };
}

export const callerOf = (res: Response): Caller => (res.locals.caller as Caller | undefined) ?? { kind: 'anonymous' };
