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

export const callerOf = (res: Response): Caller => (res.locals.caller as Caller | undefined) ?? { kind: 'anonymous' };
