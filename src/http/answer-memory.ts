// Bounds the memory of answers waiting for their clients to read them (RESPONSE_MEMORY_LIMIT). A search or graph
// answer may be tens of megabytes; Node keeps all of it until the client has read it, for as long as
// IDLE_TIMEOUT_MS while the client reads nothing. Thirty anonymous connections that sent such a search and read
// nothing took the service from 212 to 516 MB.
import { createHash } from 'node:crypto';
import { Semaphore, withTimeout, type SemaphoreInterface } from 'async-mutex';
import type { Express, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { DomainError } from '../domain/errors';
import { present } from '../domain/invariant';
import type { AnswerRoom } from '../domain/model';
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

/** What boundAnswerMemory keeps on the app, for answerRoomOf (typed in ./answer-memory-locals.d.ts). */
export interface AnswerMemory {
  budget: SendingBudget;
  limits: AnswerMemoryLimits;
  alwaysSent: number;
  /** The most one search or graph answer may take: ANSWER_SHARES of them fit in the budget. */
  largest: number;
  /** Digests of the starts whose last search or graph answered more than HEAVY_ANSWER_BYTES (admitRead). */
  heavyStarts: LRUCache<string, true>;
  /** HEAVY_READS_AT_ONCE slots, waited for up to ADMISSION_WAIT_MS. */
  heavyLane: SemaphoreInterface;
}

/**
 * How many searches and graphs from starts known to answer large run at once. Such a read costs the store far
 * more than a small one (it reads every ID, and on Neo4j every value, before it knows its answer is too large), so
 * a few clients repeating one could take every core of the store from the small reads that apps make.
 */
export const HEAVY_READS_AT_ONCE = 1;
/**
 * An answer past this marks its start as one that answers large: far more than a person's usual answer (a
 * 1,000-node person answers about 200 KB), so that analysts' ordinary large reads never wait for a slot.
 */
export const HEAVY_ANSWER_BYTES = 1 << 20;
/** How many such starts are remembered (a digest each), the most recently used kept. */
const REMEMBERED_HEAVY_STARTS = 10_000;

/** How many of the largest search or graph answers the budget holds at once (answerRoomOf). */
export const ANSWER_SHARES = 4;

/**
 * A search or graph answer is held twice until it is sent: as the store's objects and as their JSON; it takes
 * room for both.
 */
const BUILDING = 2;

const memoryOf = (res: Response): AnswerMemory => present(res.app.locals.answerMemory, 'the answer memory boundAnswerMemory keeps on the app');

class NoLane extends Error {}

/**
 * Every answer of a read larger than `limitBytes / maxConnections` takes its size of the budget until Node has
 * handed its last byte to the operating system (or the connection closed); one that does not fit is answered 503
 * server_busy instead, at once. Smaller answers (every search ONE) are always sent, and together hold at most
 * `limitBytes` more. Done where Express turns every answer into bytes (`res.send`, which `res.json` calls), so no
 * read can forget it. HEAD answers carry no body. A search or graph takes its room earlier, before its answer is
 * built (answerRoomOf); its answer then takes only what it turned out to need beyond that.
 */
export function boundAnswerMemory(app: Express, limits: AnswerMemoryLimits): void {
  const budget = new SendingBudget(limits.limitBytes);
  const alwaysSent = Math.floor(limits.limitBytes / limits.maxConnections);
  app.locals.answerMemory = {
    budget,
    limits,
    alwaysSent,
    largest: Math.floor(limits.limitBytes / ANSWER_SHARES),
    heavyStarts: new LRUCache<string, true>({ max: REMEMBERED_HEAVY_STARTS }),
    heavyLane: withTimeout(new Semaphore(HEAVY_READS_AT_ONCE), ADMISSION_WAIT_MS, new NoLane()),
  } satisfies AnswerMemory;
  const send = app.response.send;
  app.response.send = function sendWithinBudget(this: Response, body?: unknown): Response {
    const free = alwaysSent + (this.locals.answerRoomBytes ?? 0);
    // A string's length in UTF-16 units is at most its length in UTF-8 bytes: most answers need no count.
    const large = (typeof body === 'string' && body.length > free) || (Buffer.isBuffer(body) && body.length > free);
    if (!large || !(this.req.method === 'GET' || READS_BY_POST.has(this.locals.operationId ?? ''))) return send.call(this, body);
    const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    if (size <= free) return send.call(this, body);
    const release = budget.tryTake(size - (free - alwaysSent));
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

/**
 * The room a search or graph takes for its answer before the store builds it: none up to the share every
 * connection may always be sent; 422 answer_too_large past RESPONSE_MEMORY_LIMIT, which no answer can then be
 * given; else its size of the budget until the answer is sent or the connection closed, or 503 server_busy
 * (Retry-After) at once when other answers fill it.
 */
export function answerRoomOf(res: Response): AnswerRoom {
  const memory = memoryOf(res);
  return {
    freeBytes: memory.alwaysSent,
    take(bytes: number): void {
      if (bytes <= memory.alwaysSent) return;
      const start = res.locals.answerRoomStart;
      if (bytes > HEAVY_ANSWER_BYTES) {
        res.locals.answerRoomLarge = true;
        if (start !== undefined) memory.heavyStarts.set(digestOf(start), true);
      }
      if (bytes > memory.largest) {
        throw new DomainError(
          'answer_too_large',
          `The answer would be about ${bytes} bytes, more than one answer may take (a quarter of RESPONSE_MEMORY_LIMIT: ${memory.largest} bytes); ask for less: a smaller limit or max_nodes, step ONE, or another start.`,
        );
      }
      const release = memory.budget.tryTake(BUILDING * bytes);
      if (!release) {
        res.set('Retry-After', String(ADMISSION_WAIT_MS / 1000));
        throw new DomainError(
          'server_busy',
          `Other answers being sent fill the memory for answers (RESPONSE_MEMORY_LIMIT); retry in ${ADMISSION_WAIT_MS / 1000} s.`,
        );
      }
      res.locals.answerRoomBytes = (res.locals.answerRoomBytes ?? 0) + BUILDING * bytes;
      res.once('finish', release).once('close', release);
      // The client left while the store read: nothing will be sent.
      if (res.destroyed) release();
    },
  };
}

/** What a search or graph starts from, as admitRead tells one start from another. */
export interface ReadStart {
  customerId: string;
  operation: 'search' | 'graph';
  step: string;
  from: { schema?: string | undefined; key?: { type: string; id: string } | undefined; where?: { type: string; id: string } | undefined };
}

/** How admitRead knows a start: a digest, never its values (a start may be a secure ID). */
function digestOf(start: ReadStart): string {
  const { schema, key, where } = start.from;
  return createHash('sha256')
    .update(
      JSON.stringify([
        start.customerId,
        start.operation,
        start.step,
        schema ?? null,
        key?.type ?? null,
        key?.id ?? null,
        where?.type ?? null,
        where?.id ?? null,
      ]),
    )
    .digest('base64');
}

/**
 * Admits a search or graph. One whose start answered more than HEAVY_ANSWER_BYTES the last time (answerRoomOf) waits for one of
 * HEAVY_READS_AT_ONCE slots, up to ADMISSION_WAIT_MS, then is 503 server_busy with Retry-After; every other read goes
 * on at once, so small reads never wait behind large ones. A start is known by a digest, never by its values (a
 * start may be a secure ID); one whose read in the slot answered less than HEAVY_ANSWER_BYTES is forgotten.
 */
export async function admitRead(res: Response, start: ReadStart): Promise<void> {
  const memory = memoryOf(res);
  res.locals.answerRoomStart = start;
  // No start answered large: nothing to look up (the digest is made only when one must be kept).
  if (memory.heavyStarts.size === 0) return;
  const digest = digestOf(start);
  if (!memory.heavyStarts.has(digest)) return;
  let release: () => void;
  try {
    [, release] = await memory.heavyLane.acquire();
  } catch (e) {
    if (!(e instanceof NoLane)) throw e;
    res.set('Retry-After', String(ADMISSION_WAIT_MS / 1000));
    throw new DomainError('server_busy', `Other reads with large answers are running; retry in ${ADMISSION_WAIT_MS / 1000} s.`);
  }
  let released = false;
  const done = (): void => {
    if (released) return;
    released = true;
    release();
    if (res.locals.answerRoomLarge !== true) memory.heavyStarts.delete(digest);
  };
  res.once('finish', done).once('close', done);
  // The client left while it waited: nothing will be read.
  if (res.destroyed) done();
}
