// Request-wide middleware: request id and context, the access log, body media type, and the error handler.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { parse as parseContentType } from 'content-type';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { isDomainError } from '../domain/errors';
import { ByteBudget } from './admission';
import { closeAfterAnswer } from './closing';
import { contentEncoding, readCompressedJson } from './compressed-body';
import { type Logger, requestContext } from '../logger';
import { sendProblem } from './problem';
import { isWellFormedHost } from './public-url';
import { routeLabel } from './route-label';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const offered = req.get('x-request-id');
    const id = offered && SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
    res.locals.requestId = id;
    res.set('X-Request-Id', id);
    requestContext.run({ requestId: id }, next);
  };
}

/** One line per request. Only the route template and customer are logged: never bodies, headers or ID values. */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info('request', {
        request_id: res.locals.requestId,
        method: req.method,
        route: routeLabel(req, res),
        status: res.statusCode,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        customer: res.locals.customerId ?? null,
      });
    });
    next();
  };
}

/** The routes whose body may stream for as long as it keeps moving (millions of lines): _bulk and _import. */
const STREAMED = /\/(node\/_bulk|_import)$/;
const isBulk = (req: Request): boolean => STREAMED.test(req.path);

export const NDJSON = 'application/x-ndjson';

export const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** The media type of a body, lower case, without parameters; undefined when its Content-Type does not parse. */
function mediaType(req: IncomingMessage): string | undefined {
  try {
    return parseContentType(req.headers['content-type'] ?? '').type;
  } catch {
    return undefined;
  }
}

/**
 * A _bulk or _import body its route reads as lines; a body of any other type there is read (and refused) like any
 * other. Read from the request as Node parsed it, so that the server can tell too, before Express sees it.
 */
export const isBulkStream = (req: IncomingMessage): boolean => hasBody(req) && STREAMED.test((req.url ?? '').split('?')[0] ?? '') && mediaType(req) === NDJSON;

/**
 * 503 import_in_progress for a request to a customer this process is importing into (src/domain/import.ts), but the
 * import itself; the customer is the one res.locals names (from the path, or from a mapi token).
 */
export function notImporting(imports: { isImporting(customerId: string): boolean }): RequestHandler {
  return (req, res, next) => {
    const customerId: unknown = res.locals.customerId;
    if (typeof customerId === 'string' && imports.isImporting(customerId) && !req.originalUrl.split('?')[0]?.endsWith('/_import')) {
      res.set('Retry-After', '5');
      sendProblem(res, 'import_in_progress', 'An import of this customer is under way; retry once it has ended.');
      return;
    }
    next();
  };
}

/**
 * Every body but _bulk's must have arrived `timeoutMs` after its headers: a client sending a byte every few
 * seconds would otherwise hold its socket forever (the idle timeout never fires while bytes flow). Past the
 * deadline the answer is 408 request_timeout and the connection is closed; when an answer has been sent
 * already (a route that did not read the body), the connection is just closed.
 */
export function bodyDeadline(timeoutMs: number): RequestHandler {
  return (req, res, next) => {
    if (isBulkStream(req)) {
      next();
      return;
    }
    const timer = setTimeout(() => {
      if (req.complete) return;
      if (res.headersSent) {
        req.socket.destroy();
        return;
      }
      closeAfterAnswer(res);
      sendProblem(res, 'request_timeout', `The request body did not arrive within ${timeoutMs} ms.`);
    }, timeoutMs);
    timer.unref();
    req.once('close', () => clearTimeout(timer));
    next();
  };
}

/**
 * A Host header that is not host [":" port] (RFC 3986), or more than one, is 400 on every path, as RFC 9112 asks:
 * nothing may copy it into a URL. A missing Host (HTTP/1.0) passes; what needs one refuses then (publicBase).
 */
export function wellFormedHost(): RequestHandler {
  return (req, res, next) => {
    const host = req.headers.host;
    // Node keeps the first of several Host lines; RFC 9112 wants them refused, as one could be read over the other.
    if ((host !== undefined && !isWellFormedHost(host)) || (req.headersDistinct.host?.length ?? 0) > 1) {
      sendProblem(res, 'malformed_request', 'Send one Host header, a host[:port] (RFC 3986).');
      return;
    }
    next();
  };
}

export const JSON_TYPES = ['application/json', 'application/*+json'];

/** A body that is not JSON is refused before anything reads it (the bulk endpoint checks its own NDJSON). */
export function jsonBodiesOnly(): RequestHandler {
  return (req, res, next) => {
    if (hasBody(req) && !req.is(JSON_TYPES) && !isBulk(req)) {
      sendProblem(res, 'unsupported_media_type', 'Send the body as application/json.');
      return;
    }
    next();
  };
}

export interface BodyMemoryLimits {
  /** BODY_MEMORY_LIMIT in bytes. */
  limitBytes: number;
  /** BODY_LIMIT in bytes: what a body of no declared length may grow to. */
  bodyLimitBytes: number;
  /** MAX_CONNECTIONS: each may always send a body of limitBytes / maxConnections. */
  maxConnections: number;
}

/**
 * Bounds the bytes of JSON bodies being read and held at once (docs/operations.md, "Request bodies"): unbounded,
 * 500 anonymous connections each sending most of a one-megabyte body would hold half a gigabyte. A body of at most `limitBytes /
 * maxConnections` is always read, so slow senders that take the budget never hold back ordinary requests; those
 * small bodies together hold at most `limitBytes` more. A larger body first takes its declared length of the
 * budget (BODY_LIMIT when it declares none) until its answer is sent; one that finds no room for 5 s gets 503
 * server_busy and is never read. A declared length over BODY_LIMIT takes nothing: the parser refuses it unread.
 * A compressed body is counted by what it inflates to, as it inflates (readCompressedJson).
 */
export function bodyMemory(limits: BodyMemoryLimits): RequestHandler {
  const budget = new ByteBudget('BODY_MEMORY_LIMIT', limits.limitBytes, limits.bodyLimitBytes);
  const alwaysRead = Math.floor(limits.limitBytes / limits.maxConnections);
  return (req, res, next) => {
    if (!hasBody(req) || isBulkStream(req)) {
      next();
      return;
    }
    if (contentEncoding(req) !== 'identity') {
      // Of another type, no parser reads it (jsonBodiesOnly let it pass to _bulk's route, which refuses it).
      if (req.is(JSON_TYPES)) readCompressedJson(req, res, next, { budget, freeBytes: alwaysRead, limitBytes: limits.bodyLimitBytes });
      else next();
      return;
    }
    // Node's parser has refused a malformed or repeated Content-Length already.
    const declared = req.headers['transfer-encoding'] === undefined ? Number(req.headers['content-length']) : limits.bodyLimitBytes;
    if (!(declared > alwaysRead && declared <= limits.bodyLimitBytes)) {
      next();
      return;
    }
    // The room goes back when the answer is sent or the connection closes. Node often notices a client that left
    // only once the body is read (its socket is paused until then); when it noticed during the wait, at once.
    let release: (() => void) | undefined;
    let gone = false;
    res.once('close', () => {
      gone = true;
      release?.();
    });
    budget.take(declared).then((granted) => {
      // Answered meanwhile (its body too slow: cutSlowBodies): nothing is left to do.
      if (res.headersSent) {
        granted?.();
      } else if (!granted) {
        budget.refuse(res, 'Other large request bodies fill the memory for bodies');
      } else if (gone) {
        granted();
      } else {
        release = granted;
        next();
      }
    }, next);
  };
}

const SANE_CUSTOMER = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Records the path's customer for the access log before anything can refuse the request. */
export function customerFromPath(): RequestHandler {
  return (req, res, next) => {
    const customerId = req.params.customer_id;
    if (typeof customerId === 'string' && SANE_CUSTOMER.test(customerId) && customerId !== 'delivery') res.locals.customerId = customerId;
    next();
  };
}

export function notFound(): RequestHandler {
  return (_req, res) => sendProblem(res, 'not_found', 'No such endpoint.');
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/**
 * What the log keeps of an unexpected error: its name, its code (a driver's or SQLite's) and where it was thrown,
 * never its message. A store's message may quote the values of a write (a Neo4j ConstraintValidationFailed names
 * the property value, which may be a secure ID), so it is cut from the stack too, as `_bulk` logs store errors.
 */
export function loggableError(err: unknown): { name: string; code?: string; stack?: string } {
  // By shape, not instanceof: a native addon's errors may come from another realm's Error (jest gives each test
  // file its own).
  if (typeof err !== 'object' || err === null) return { name: typeof err };
  const { name, code, message, stack: raw } = err as { name?: unknown; code?: unknown; message?: unknown; stack?: unknown };
  // V8 starts a stack with "<name>: <message>" (several lines when the message has them); the frames follow it.
  const at = typeof raw === 'string' && typeof message === 'string' ? raw.indexOf(message) : -1;
  const stack = typeof raw === 'string' && typeof message === 'string' && at >= 0 ? raw.slice(at + message.length) : '';
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return {
    name: typeof name === 'string' ? name : 'object',
    ...(typeof code === 'string' ? { code } : {}),
    ...(frames.length > 0 ? { stack: frames.join('\n') } : {}),
  };
}

/** Clients see codes and safe details; a 5xx is logged with its name, code and stack (not its message) under the request id. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    if (isDomainError(err)) {
      if (err.code === 'store_unavailable') logger.warn('store unavailable', { error: err.message });
      sendProblem(res, err.code, err.message, err.errors, err.members);
      return;
    }
    // A path with broken percent-encoding (e.g. /v1/%zz/schema) fails in the router before any route runs.
    if (err instanceof URIError) {
      sendProblem(res, 'validation_failed', 'The path is not valid percent-encoding.', [{ path: '/path', message: 'is not valid percent-encoding' }]);
      return;
    }
    const parserError = err as BodyParserError;
    switch (parserError?.type) {
      case 'entity.parse.failed':
        sendProblem(res, 'invalid_json', 'The body is not valid JSON.');
        return;
      case 'entity.too.large':
        sendProblem(res, 'payload_too_large', 'The body is larger than this service accepts.');
        return;
      case 'encoding.unsupported':
      case 'charset.unsupported':
        sendProblem(res, 'unsupported_media_type', 'Send the body as UTF-8 application/json.');
        return;
      default:
        if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
          sendProblem(res, 'invalid_json', 'The body could not be read.');
          return;
        }
    }
    logger.error('unhandled error', { error: loggableError(err) });
    sendProblem(res, 'internal_error', 'Something went wrong on our side; quote the request id when reporting it.');
  };
}
