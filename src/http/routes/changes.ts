// GET /v1/{customer_id}/_changes (docs/changes-and-export.md): pages of the change feed as JSON, or a stream of
// server-sent events for a client that accepts only text/event-stream's kind of answer.
import type { RequestHandler, Router } from 'express';
import type { ChangeFeedService, CursorChange } from '../../domain/changes';
import type { components } from '../../generated/openapi';
import { callerOf } from '../auth';
import { defaulted, operation, type Validators } from '../operation';
import { caseSensitiveRouter } from '../router';
import { abandonment, drained } from '../streaming';

export interface ChangeStreamTiming {
  /** CHANGES_STREAM_SECONDS, in milliseconds. */
  durationMs: number;
  /** CHANGES_KEEPALIVE_SECONDS, in milliseconds: a comment line after this long without an event. */
  keepAliveMs: number;
}

const changeBody = (c: CursorChange): components['schemas']['Change'] => ({
  cursor: c.cursor,
  at: c.entry.at,
  request_id: c.entry.requestId,
  actor: c.entry.actor,
  op: c.entry.op,
  schema: c.entry.schema,
  key: c.entry.key,
  added: c.entry.added,
  removed: c.entry.removed,
  ...(c.redacts ? { redacts: c.redacts } : {}),
});

export function changeRoutes(validators: Validators, bearer: RequestHandler, feed: ChangeFeedService, timing: ChangeStreamTiming): Router {
  const router = caseSensitiveRouter();
  router.get(
    '/v1/:customer_id/_changes',
    bearer,
    operation(validators, 'listChanges', async ({ params, query }, req, res) => {
      const caller = callerOf(res);
      const signal = abandonment(req, res);
      if (req.accepts(['application/json', 'text/event-stream']) !== 'text/event-stream') {
        const page = await feed.page(
          caller,
          params.customer_id,
          { after: query.after, limit: defaulted(query.limit, 'limit'), wait: defaulted(query.wait, 'wait') },
          signal,
        );
        if (signal.aborted) return;
        res.json({ changes: page.changes.map(changeBody), next: page.next });
        return;
      }
      const lastEventId = req.get('Last-Event-ID');
      const after = lastEventId === undefined || lastEventId === '' ? query.after : lastEventId;
      let started = false;
      try {
        await feed.follow(caller, params.customer_id, after, { durationMs: timing.durationMs, idleMs: timing.keepAliveMs }, signal, {
          start: () => {
            started = true;
            res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
            res.flushHeaders();
          },
          changes: async (changes, streaming) => {
            const text = changes.map((c) => `id: ${c.cursor}\nevent: change\ndata: ${JSON.stringify(changeBody(c))}\n\n`).join('');
            // A client that does not read: no more is read for it until it does, or until its stream's time is up.
            if (!res.write(text)) await drained(res, streaming);
          },
          idle: () => {
            res.write(': keep-alive\n\n');
          },
        });
      } catch (e) {
        // Before the stream started: a problem answer. After: the stream ends, and the client reconnects.
        if (!started) throw e;
      }
      // A client gone, or one that left what was written unread at the end of its time: the connection is closed
      // rather than held for it.
      if (signal.aborted || res.writableNeedDrain) res.destroy();
      else res.end();
    }),
  );
  return router;
}
