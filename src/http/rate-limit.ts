// Optional rate limiting per verified token, or per client address when the request has none. Off unless
// RATE_LIMIT_REQUESTS > 0. Answers 429 problem+json with Retry-After. It runs after identifyCaller (auth.ts):
// keying on the header text instead would give every made-up token, or every spelling of a real one, a fresh
// bucket, so a header that does not verify counts against the address like no header at all.
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { verifiedCallerOf } from './auth';
import { sendProblem } from './problem';

export interface RateLimitSettings {
  rateLimitRequests: number;
  rateLimitWindowSeconds: number;
}

/** When the caller's bucket empties again: what express-rate-limit puts on the request (`req.rateLimit`). */
function resetTimeOf(req: Request): Date | undefined {
  const info: unknown = 'rateLimit' in req ? req.rateLimit : undefined;
  return typeof info === 'object' && info !== null && 'resetTime' in info && info.resetTime instanceof Date ? info.resetTime : undefined;
}

/** One bucket per identity: the administrator, a token by its id, or an address (IPv6 grouped by /56). */
function rateKey(req: Request, res: Response): string {
  const caller = verifiedCallerOf(res);
  if (caller.kind === 'admin') return 'admin';
  if (caller.kind === 'anonymous') return `ip:${ipKeyGenerator(req.ip ?? '')}`;
  return `token:${caller.tokenId}`;
}

export function rateLimiter(settings: RateLimitSettings): RequestHandler | undefined {
  if (settings.rateLimitRequests <= 0) return undefined;
  const windowMs = settings.rateLimitWindowSeconds * 1000;
  return rateLimit({
    windowMs,
    limit: settings.rateLimitRequests,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: rateKey,
    handler: (req, res) => {
      const resetTime = resetTimeOf(req);
      const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : settings.rateLimitWindowSeconds;
      res.set('Retry-After', String(seconds));
      sendProblem(res, 'rate_limited', `Too many requests; retry in ${seconds} s.`);
    },
  });
}
