// POST /v1/{customer_id}/node/_bulk: NDJSON in, NDJSON out. Each line is one create, insert, upsert or delete
// with exactly the body and rules of its single endpoint; each answers with one result line, in order, so a
// bad line never stops or changes the others.
import { type Request, type RequestHandler, type Response, type Router } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { DomainError, isDomainError } from '../../domain/errors';
import { present } from '../../domain/invariant';
import type { Actor, BulkItem, NodeService } from '../../domain/nodes';
import type { Logger } from '../../logger';
import { BulkSlots } from '../bulk-slots';
import { contentEncoding, inflatedBody } from '../compressed-body';
import { NDJSON } from '../middleware';
import { isJsonObject } from '../openapi';
import { operation, type OperationId, validatedBody, type Validators } from '../operation';
import { problemBody, sendProblem, statusOf } from '../problem';
import { actorOf } from './node';
import { caseSensitiveRouter } from '../router';
import { brokenUnicode } from '../well-formed';

const BULK_OPERATIONS = {
  create: { operationId: 'createNode', status: 201 },
  insert: { operationId: 'insertIds', status: 201 },
  upsert: { operationId: 'upsertId', status: 200 },
  delete: { operationId: 'deleteNode', status: 204 },
} as const satisfies Record<BulkItem['op'], { operationId: OperationId; status: number }>;

type BulkOp = BulkItem['op'];

// Own keys only: `in` would also accept what every object inherits (constructor, toString, __proto__...).
const isBulkOp = (op: unknown): op is BulkOp => typeof op === 'string' && Object.hasOwn(BULK_OPERATIONS, op);

/** An error's `code` when it has one as text (zlib's, Node's). */
const codeOf = (e: unknown): string | undefined => (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined);

interface BulkResult {
  line: number;
  status: number;
  code?: string;
  detail?: string;
  errors?: Array<{ path: string; message: string }>;
}

export { NDJSON };

/** One line of the body: its text and size in bytes, or only its number when it was over the line limit (its bytes were dropped). */
type Line = { number: number; text: string; bytes: number } | { number: number; tooLarge: true };
type TextLine = Extract<Line, { text: string }>;

/**
 * Splits a byte stream into lines without ever holding more than `maxBytes` of one line. Blank lines are skipped.
 * `progress.bytes` counts the bytes read so far, complete lines or not. A line past `maxBytes` comes as `tooLarge` once
 * it ends; with `stopAtTooLarge`, as soon as it passes the limit, and nothing more is read (an import refuses the whole
 * body there, and must not read gigabytes of a line it refused).
 */
export async function* ndjsonLines(
  stream: AsyncIterable<Buffer>,
  maxBytes: number,
  progress: { bytes: number } = { bytes: 0 },
  stopAtTooLarge = false,
): AsyncGenerator<Line> {
  let parts: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  let number = 0;
  const finish = (): Line | undefined => {
    number += 1;
    const line: Line | undefined = tooLarge ? { number, tooLarge: true } : { number, text: Buffer.concat(parts).toString('utf8'), bytes: size };
    parts = [];
    size = 0;
    tooLarge = false;
    if ('text' in line && line.text.trim() === '') return undefined;
    return line;
  };
  for await (const chunk of stream) {
    progress.bytes += chunk.length;
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (!tooLarge) parts.push(chunk.subarray(start, nl));
      size += nl - start;
      if (size > maxBytes) tooLarge = true;
      const line = finish();
      if (line) yield line;
      start = nl + 1;
    }
    if (start < chunk.length) {
      size += chunk.length - start;
      if (size > maxBytes) tooLarge = true;
      if (!tooLarge) parts.push(chunk.subarray(start));
    }
    if (tooLarge && stopAtTooLarge) {
      yield { number: number + 1, tooLarge: true };
      return;
    }
  }
  if (size > 0 || tooLarge) {
    const line = finish();
    if (line) yield line;
  }
}

function parseLine(text: string): { op: BulkOp; body: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('invalid_json', 'This line is not valid JSON.');
  }
  const broken = brokenUnicode(parsed, '/line');
  if (broken.length > 0) throw new DomainError('validation_failed', 'Text must be well-formed Unicode; see errors.', broken);
  const problems: Array<{ path: string; message: string }> = [];
  if (!isJsonObject(parsed)) {
    problems.push({ path: '/line', message: 'must be an object {"op", "body"}' });
  } else {
    const { op, body, ...rest } = parsed;
    if (!isBulkOp(op)) problems.push({ path: '/line/op', message: 'must be one of create, insert, upsert, delete' });
    if (body === undefined) problems.push({ path: '/line/body', message: 'is required' });
    for (const extra of Object.keys(rest)) problems.push({ path: `/line/${extra}`, message: 'is not an allowed field' });
    if (problems.length === 0 && isBulkOp(op)) return { op, body };
  }
  throw new DomainError('validation_failed', 'The line does not match {"op","body"}.', problems);
}

async function writeLine(res: Response, result: BulkResult): Promise<void> {
  if (!res.write(`${JSON.stringify(result)}\n`)) await new Promise((resolve) => res.once('drain', resolve));
}

/** Lines applied together: one store transaction (with a savepoint per line) instead of one per line. */
const BATCH_LINES = 500;

/** A sender that pauses this long gets the results of the lines it sent so far (see the route). */
const PAUSE_FLUSH_MS = 200;

export interface BulkLimits {
  /** Most bytes in one line (BODY_LIMIT); a longer line is that line's 413. */
  maxLineBytes: number;
  /** Most bytes of lines one request gathers before it applies them (BULK_BATCH_LIMIT). */
  batchBytes: number;
  /** Most bytes of lines all requests together hold (BULK_MEMORY_LIMIT); each takes batchBytes + maxLineBytes of it. */
  memoryBytes: number;
  /** Longest wait for a complete line before the request is ended (BULK_LINE_TIMEOUT_MS). */
  lineTimeoutMs: number;
  /** Least bytes the body brings in each window after its first (BULK_LINE_MIN_BYTES)... */
  lineMinBytes: number;
  /** ...of this many ms spent waiting for it (BULK_LINE_RATE_WINDOW_MS). */
  lineRateWindowMs: number;
}

/** The promise's outcome, or 'late' when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The pace of one body, in windows of the time the route spends waiting for it: time spent applying lines or
 * writing results is not the sender's, and a sender may wait for results before it sends more. The first window
 * may bring anything; each later one must bring `minBytes`, whole lines or parts of one. Counted over the body, not
 * per line: short complete lines now and then would otherwise each start a free window, and hold a slot for ever.
 */
class BodyPace {
  private windowLeftMs: number;
  /** The body's bytes when the current window began; undefined during the first. */
  private bytesAtWindowStart: number | undefined;

  constructor(
    private readonly minBytes: number,
    private readonly windowMs: number,
    private readonly progress: { bytes: number },
  ) {
    this.windowLeftMs = windowMs;
  }

  /** `reading`'s outcome; 'late' when it has not settled within `ms`; 'slow' when a window ended with too few bytes. */
  async wait<T>(reading: Promise<T>, ms: number): Promise<T | 'late' | 'slow'> {
    let leftMs = ms;
    for (;;) {
      const started = Date.now();
      const next = await within(reading, Math.max(0, Math.min(leftMs, this.windowLeftMs)));
      const waited = Date.now() - started;
      leftMs -= waited;
      this.windowLeftMs -= waited;
      if (this.windowLeftMs <= 0) {
        if (this.bytesAtWindowStart !== undefined && this.progress.bytes - this.bytesAtWindowStart < this.minBytes) return 'slow';
        this.bytesAtWindowStart = this.progress.bytes;
        this.windowLeftMs = this.windowMs;
      }
      if (next !== 'late' || leftMs <= 0) return next;
    }
  }
}

export function bulkRoutes(validators: Validators, bearer: RequestHandler, nodes: NodeService, logger: Logger, limits: BulkLimits): Router {
  const router = caseSensitiveRouter();
  const { maxLineBytes, batchBytes, lineTimeoutMs, lineMinBytes, lineRateWindowMs } = limits;
  // What one request may hold: a batch of lines, and the line being read after it. Every request in progress
  // reserves that much of the memory all share, whatever it turns out to send, so the total is bounded by bytes.
  const slots = new BulkSlots(limits.memoryBytes, batchBytes + maxLineBytes);
  /**
   * Parses and validates one line exactly like the single endpoint's body. It empties the line's text: the
   * request's suspended frame still holds the line while it waits for the next one, and a line may be as long as
   * BODY_LIMIT. Only the parsed item is kept.
   */
  const checkLine = (customerId: string, line: TextLine): BulkItem => {
    const { text } = line;
    line.text = '';
    const { op, body } = parseLine(text);
    const params = { customer_id: customerId };
    switch (op) {
      case 'create':
        return { op, body: validatedBody(validators, BULK_OPERATIONS.create.operationId, params, body) };
      case 'insert':
        return { op, body: validatedBody(validators, BULK_OPERATIONS.insert.operationId, params, body) };
      case 'upsert':
        return { op, body: validatedBody(validators, BULK_OPERATIONS.upsert.operationId, params, body) };
      case 'delete':
        return { op, body: validatedBody(validators, BULK_OPERATIONS.delete.operationId, params, body) };
    }
  };

  const refused = (line: number, error: DomainError): BulkResult => ({
    line,
    status: statusOf(error.code),
    code: error.code,
    detail: error.message,
    ...(error.errors ? { errors: error.errors } : {}),
  });

  /**
   * Runs one batch and writes its results in input order. A DomainError for the whole batch (the store
   * unavailable) is every line's answer; anything else is a fault of ours and stops the request (see the route).
   */
  const flush = async (res: Response, actor: Actor, batch: Array<{ line: number; item?: BulkItem; result?: BulkResult }>) => {
    const runnable = batch.flatMap((b) => (b.item === undefined ? [] : [{ entry: b, item: b.item }]));
    let outcomes: Array<DomainError | undefined>;
    try {
      outcomes = await nodes.bulk(
        actor,
        runnable.map((r) => r.item),
      );
    } catch (e) {
      if (!isDomainError(e)) throw e;
      outcomes = runnable.map(() => e);
    }
    runnable.forEach(({ entry, item }, i) => {
      const outcome = outcomes[i];
      entry.result = outcome ? refused(entry.line, outcome) : { line: entry.line, status: BULK_OPERATIONS[item.op].status };
    });
    for (const b of batch) await writeLine(res, present(b.result, "a bulk line's result"));
  };

  router.post(
    '/v1/:customer_id/node/_bulk',
    bearer,
    operation(validators, 'bulkNodes', async ({ params }, req, res) => {
      if (!req.is(NDJSON)) {
        sendProblem(res, 'unsupported_media_type', `Send the lines as ${NDJSON}.`);
        return;
      }
      const encoding = contentEncoding(req);
      if (encoding !== 'identity' && encoding !== 'gzip') {
        sendProblem(res, 'unsupported_media_type', 'Send the lines uncompressed, or with Content-Encoding: gzip.');
        return;
      }
      const actor = actorOf(res, params.customer_id);
      // Refused whole before it takes a slot: 401 when the customer requires a token the caller lacks, 404 when the
      // customer has no schema (no line could be applied).
      await nodes.admit(actor);
      const release = await slots.take({
        customer: actor.customerId,
        authenticated: actor.authenticated,
        address: ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? ''),
      });
      if (typeof release === 'string') {
        slots.refuse(res, release);
        return;
      }
      try {
        await streamResults(req, res, actor);
      } finally {
        release();
      }
    }),
  );

  /**
   * Reads lines, applies them in batches of at most BATCH_LINES lines and `batchBytes` bytes, and writes their
   * results in order. A sender that pauses gets the results so far; one that sends no complete line for
   * `lineTimeoutMs`, or too few bytes (BodyPace), gets a last request_timeout line, and the connection is closed; a
   * gzip body that does not inflate, a last malformed_request line. Any other failure becomes a last internal_error
   * line.
   */
  async function streamResults(req: Request, res: Response, actor: Actor): Promise<void> {
    // The answer begins now that the request holds a slot: the connection cap then leaves it open as long as its
    // results are read (src/http/connection-cap.ts), where a sender still on its first line would count as waiting.
    res.status(200).type(NDJSON);
    res.flushHeaders();
    let batch: Array<{ line: number; item?: BulkItem; result?: BulkResult }> = [];
    let batchSize = 0;
    // The last line whose result was written: a failure after it says where the answers stop.
    let answeredThrough = 0;
    const applyBatch = async () => {
      if (batch.length === 0) return;
      await flush(res, actor, batch);
      answeredThrough = batch[batch.length - 1]?.line ?? answeredThrough;
      batch = [];
      batchSize = 0;
    };
    const progress = { bytes: 0 };
    const pace = new BodyPace(lineMinBytes, lineRateWindowMs, progress);
    const lines = ndjsonLines(inflatedBody(req), maxLineBytes, progress)[Symbol.asyncIterator]();
    /** Ends the answer with one problem line; the body is unfinished, so the connection cannot carry another request. */
    const stop = (code: 'request_timeout' | 'malformed_request', detail: string) => {
      res.write(
        `${problemBody(code, `${detail}; the request stopped after line ${answeredThrough}, and no later line was applied.`, String(res.locals.requestId ?? ''))}\n`,
      );
      res.end(() => req.socket.destroy());
    };
    try {
      for (;;) {
        const reading = lines.next();
        // The wait for a line (BULK_LINE_TIMEOUT_MS) starts once the results so far are written, and the body's pace
        // stops while they are applied and written: a client may wait for them before it sends more.
        let next: IteratorResult<Line> | 'late' | 'slow' = batch.length > 0 ? await pace.wait(reading, PAUSE_FLUSH_MS) : 'late';
        if (next === 'late') {
          await applyBatch();
          next = await pace.wait(reading, lineTimeoutMs);
        }
        if (next === 'late' || next === 'slow') {
          // Cutting the connection below ends the read under way with an error nobody waits for.
          reading.catch(() => undefined);
          logger.info('bulk request timed out waiting for a line', {
            request_id: res.locals.requestId,
            answered_through_line: answeredThrough,
            reason: next === 'late' ? 'no_line' : 'too_slow',
          });
          stop(
            'request_timeout',
            next === 'late'
              ? `No complete line arrived for ${lineTimeoutMs / 1000} s`
              : `The body brought fewer than ${lineMinBytes} bytes in ${lineRateWindowMs / 1000} s`,
          );
          return;
        }
        if (next.done) break;
        const line = next.value;
        const size = 'tooLarge' in line ? 0 : line.bytes;
        // A line longer than the last one may still not fit the batch.
        if (batchSize + size > batchBytes) await applyBatch();
        batchSize += size;
        if ('tooLarge' in line) {
          batch.push({
            line: line.number,
            result: { line: line.number, status: 413, code: 'payload_too_large', detail: `A line may hold at most ${maxLineBytes} bytes.` },
          });
        } else {
          try {
            batch.push({ line: line.number, item: checkLine(actor.customerId, line) });
          } catch (e) {
            if (!isDomainError(e)) throw e;
            batch.push({ line: line.number, result: refused(line.number, e) });
          }
        }
        // A batch that a line like this one would overflow runs now, not after the next line has arrived: until
        // then it would hold its parsed lines while the sender streams up to BODY_LIMIT more.
        if (batch.length >= BATCH_LINES || batchSize + size > batchBytes) await applyBatch();
      }
      await applyBatch();
    } catch (e) {
      if (!req.complete && (req.destroyed || req.socket.destroyed)) {
        // The client went away, or its connection was cut (IDLE_TIMEOUT_MS): nobody is left to answer.
        logger.info('bulk request ended before its body did', { request_id: res.locals.requestId, answered_through_line: answeredThrough });
        return;
      }
      // zlib's codes: the client's gzip is broken or cut short.
      const code = codeOf(e);
      if (code?.startsWith('Z_') && !res.writableEnded) {
        logger.info('bulk request body does not inflate', { request_id: res.locals.requestId, answered_through_line: answeredThrough });
        stop('malformed_request', 'The body is not valid gzip');
        return;
      }
      // The status line is sent already: the failure becomes the last line of the body, and the stream ends.
      // The error's kind and code, not its message: a store's message may quote the ID values of the lines.
      logger.error('bulk request failed', {
        request_id: res.locals.requestId,
        answered_through_line: answeredThrough,
        error: e instanceof Error ? e.name : typeof e,
        ...(code !== undefined ? { error_code: code } : {}),
      });
      if (!res.writableEnded && !res.destroyed) {
        res.write(
          `${problemBody('internal_error', `The request stopped after line ${answeredThrough}. Later lines got no result; up to ${BATCH_LINES} of them (the batch that was running) may have been applied, the rest were not.`, String(res.locals.requestId ?? ''))}\n`,
        );
      }
    }
    res.end();
  }
  return router;
}
