// Optional rate limiting per presented token (hashed), or per client IP when none is sent.
// Off unless RATE_LIMIT_REQUESTS > 0. Answers 429 problem+json with Retry-After.
import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { hashToken } from '../domain/tokens';
import { sendProblem } from './problem';

export interface RateLimitSettings {
  rateLimitRequests: number;
  rateLimitWindowSeconds: number;
}

export function rateLimiter(settings: RateLimitSettings): RequestHandler | undefined {
  if (settings.rateLimitRequests <= 0) return undefined;
  const windowMs = settings.rateLimitWindowSeconds * 1000;
  return rateLimit({
    windowMs,
    limit: settings.rateLimitRequests,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => {
      const presented = req.get('authorization') ?? req.get('x-service-mapi-token');
      return presented ? `token:${hashToken(presented)}` : `ip:${ipKeyGenerator(req.ip ?? '')}`;
    },
    handler: (req, res) => {
      const resetTime = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : settings.rateLimitWindowSeconds;
      res.set('Retry-After', String(seconds));
      sendProblem(res, 'rate_limited', `Too many requests; retry in ${seconds} s.`);
    },
  });
}
