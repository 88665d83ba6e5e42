// Bounds the memory of answers waiting for their clients to read them (RESPONSE_MEMORY_LIMIT). A search or graph
// answer may be tens of megabytes; Node keeps all of it until the client has read it, for as long as
// IDLE_TIMEOUT_MS while the client reads nothing. Thirty anonymous connections that sent such a search and read
// nothing took the service from 212 to 516 MB.
import type { Express, Response } from 'express';
import { ADMISSION_WAIT_MS, SendingBudget } from './admission';
import { sendProblem } from './problem';

/**
 * The operations that only read but are asked by POST. Every other POST, PUT or DELETE is a write, whose answer is
 * always sent: it echoes the write's body (a large body keeps its room in BODY_MEMORY_LIMIT until the answer is
 * sent), and refusing it would hide that the write was applied.
 */
const READS_BY_POST = new Set(['search', 'graph', 'deliveryEligibility']);

export interface AnswerMemoryLimits {
  /** RESPONSE_MEMORY_LIMIT in bytes. */
  limitBytes: number;
  /** MAX_CONNECTIONS: each may always be sent an answer of limitBytes / maxConnections. */
  maxConnections: number;
}

/**
 * Every answer of a read larger than `limitBytes / maxConnections` takes its size of the budget until Node has
 * handed its last byte to the operating system (or the connection closed); one that does not fit is answered 503
 * server_busy instead, at once. Smaller answers (every search ONE) are always sent, and together hold at most
 * `limitBytes` more. Done where Express turns every answer into bytes (`res.send`, which `res.json` calls), so no
 * read can forget it. HEAD answers carry no body.
 */
export function boundAnswerMemory(app: Express, limits: AnswerMemoryLimits): void {
  const budget = new SendingBudget(limits.limitBytes);
  const alwaysSent = Math.floor(limits.limitBytes / limits.maxConnections);
  const send = app.response.send;
  app.response.send = function sendWithinBudget(this: Response, body?: unknown): Response {
    // A string's length in UTF-16 units is at most its length in UTF-8 bytes: most answers need no count.
    const large = (typeof body === 'string' && body.length > alwaysSent) || (Buffer.isBuffer(body) && body.length > alwaysSent);
    if (!large || !(this.req.method === 'GET' || READS_BY_POST.has(this.locals.operationId as string))) return send.call(this, body);
    const size = typeof body === 'string' ? Buffer.byteLength(body) : (body as Buffer).length;
    if (size <= alwaysSent) return send.call(this, body);
    const release = budget.tryTake(size);
    if (!release) {
      // A page's headers (src/http/paging.ts) describe the answer that is not sent.
      this.removeHeader('link');
      this.removeHeader('x-total-count');
      this.set('Retry-After', String(ADMISSION_WAIT_MS / 1000));
      sendProblem(this, 'server_busy', `Other answers being sent fill the memory for answers (RESPONSE_MEMORY_LIMIT); retry in ${ADMISSION_WAIT_MS / 1000} s.`);
      return this;
    }
    this.once('finish', release).once('close', release);
    return send.call(this, body);
  };
}
