// Answers written a piece at a time (the change feed's stream, exports): knowing when the client went away, and
// waiting for it to take what was written before writing more.
import type { Request, Response } from 'express';

/** Aborts when the client goes away before its answer is complete: the work for it stops. */
export function abandonment(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  req.on('close', () => {
    if (!res.writableFinished && req.destroyed) controller.abort();
  });
  return controller.signal;
}

/** Resolves when `res` can take more, or when `signal` aborts (a client that stopped reading). */
export function drained(res: Response, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
