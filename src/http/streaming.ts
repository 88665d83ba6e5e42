// Answers written a piece at a time (the change feed's stream, exports): knowing when the client went away, and
// waiting for it to take what was written before writing more.
import type { Request, Response } from 'express';

/**
 * Aborts when the client goes away before its answer is complete: the work for it stops. A client already gone when
 * this is asked (while its token was looked up, say) has it aborted at once: its close events have passed.
 */
export function abandonment(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  if (res.destroyed || req.socket.destroyed) {
    controller.abort();
    return controller.signal;
  }
  res.on('close', () => controller.abort());
  req.on('close', () => {
    if (!res.writableFinished && req.destroyed) controller.abort();
  });
  return controller.signal;
}

/**
 * Resolves when `res` can take more, when `signal` aborts (a client that stopped reading), or when the answer is
 * closed (a client gone: a closed answer never drains). Resolves at once when any of them is so already.
 */
export function drained(res: Response, signal: AbortSignal): Promise<void> {
  if (signal.aborted || res.destroyed || !res.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
