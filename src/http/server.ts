// The HTTP server around the app, as main.ts and the tests start it. Node's HTTP parser refuses some requests
// before Express sees them (a header section over 16 KB, broken framing, headers that take too long to arrive);
// Node would then answer with a bare status line. Here those answers carry a problem+json body like every other
// error, and a log line with the reason, never the bytes received (they may hold a token). The server also
// caps how many connections are open (capConnections) and how long a slow client may hold one (ConnectionLimits,
// cutSlowBodies).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import type { ConnectionLimits } from '../config';
import type { ErrorCode } from '../domain/errors';
import type { Logger } from '../logger';
import { closeAfterAnswer } from './closing';
import { type ClientPace, type ConnectionDropReason, capConnections } from './connection-cap';
import { hasBody, isBulkStream } from './middleware';
import { problemBody, statusOf } from './problem';

/** What the client did wrong, by the parser's error code (the cases Node's own handler tells apart). */
function classify(parserCode: string | undefined): { code: ErrorCode; detail: string } {
  switch (parserCode) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', detail: 'The request line and headers together exceed 16 KB.' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', detail: 'The chunk extensions of the body are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', detail: 'The request did not arrive in time.' };
    default:
      return { code: 'malformed_request', detail: 'The request is not well-formed HTTP/1.1.' };
  }
}

/** Answers what Node's parser refused, as Node's own handler does (only when no response has begun on the socket). */
export function answerClientErrors(server: http.Server, logger: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way on this connection (pipelining) cannot be followed by another; Node's own
    // handler makes the same check on the socket's current response.
    const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || current?.headersSent === true) {
      socket.destroy();
      return;
    }
    const { code, detail } = classify(err.code);
    const requestId = randomUUID();
    const status = statusOf(code);
    const body = problemBody(code, detail, requestId);
    logger.info('request refused by the HTTP parser', { request_id: requestId, status, reason: err.code ?? 'unknown' });
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n` +
        'Content-Type: application/problem+json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}

/**
 * Answers a request whose `Expect` header is not `100-continue`: Node would send a bare 417 without a body, and
 * never passes the request to the app.
 */
export function answerFailedExpectations(server: http.Server, logger: Logger): void {
  server.on('checkExpectation', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    const requestId = randomUUID();
    const code = 'expectation_failed';
    logger.info('request refused: unsupported Expect header', { request_id: requestId, status: statusOf(code) });
    endWithProblem(res, code, 'The only expectation this server meets is Expect: 100-continue.', requestId);
  });
}

/** A problem answer written straight to Node's response, outside the app, and the connection closed after it. */
function endWithProblem(res: http.ServerResponse, code: ErrorCode, detail: string, requestId: string): void {
  const body = problemBody(code, detail, requestId);
  closeAfterAnswer(res);
  res.writeHead(statusOf(code), {
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
  });
  res.end(body);
}

/**
 * Cuts a request body that brings fewer than `pace.minBytes` in a window of `pace.windowMs` before it is complete
 * (a body smaller than that: all of it within the first window): 408 request_timeout with Connection: close when no
 * answer has begun, else the connection is closed. BODY_TIMEOUT_MS alone would let a byte every few seconds hold the
 * connection, and what its request reserved, for all of it. Bytes the app has not read yet count as brought: then
 * the app is behind (waiting for BODY_MEMORY_LIMIT), not the client. A _bulk body is paced by its route instead,
 * which knows when it is busy with the lines already sent (BULK_LINE_MIN_BYTES).
 */
export function cutSlowBodies(server: http.Server, pace: ClientPace, logger: Logger): void {
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!hasBody(req) || isBulkStream(req)) return;
    const socket = req.socket;
    let bytesAtWindowStart = socket.bytesRead;
    const timer = setInterval(() => {
      if (req.complete || socket.destroyed) {
        clearInterval(timer);
        return;
      }
      const brought = socket.bytesRead - bytesAtWindowStart;
      bytesAtWindowStart = socket.bytesRead;
      if (brought >= pace.minBytes || req.readableLength > 0) return;
      clearInterval(timer);
      const requestId = String(res.getHeader('x-request-id') ?? randomUUID());
      logger.info('request body too slow', { request_id: requestId, brought_bytes: brought, window_ms: pace.windowMs });
      if (res.headersSent) {
        socket.destroy();
        return;
      }
      endWithProblem(res, 'request_timeout', `The request body brought fewer than ${pace.minBytes} bytes in ${pace.windowMs / 1000} s.`, requestId);
    }, pace.windowMs);
    timer.unref();
    res.once('close', () => clearInterval(timer));
  });
}

/** Starts serving `app` on host:port; `listening` fires when it is up. */
export function serve(
  app: Express,
  logger: Logger,
  port: number,
  host: string,
  limits: ConnectionLimits,
  onDropped?: (reason: ConnectionDropReason) => void,
): http.Server {
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      // Node's whole-request timeout would also cut a _bulk import whose body is still flowing after minutes.
      // Bodies are bounded instead by bodyDeadline (src/http/middleware.ts) and cutSlowBodies (all but _bulk,
      // which its route paces), and, for every request, by the idle timeout below.
      requestTimeout: 0,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node looks for connections past headersTimeout (its default, 30 s, would let a slow header
      // hold its socket up to 30 s longer than the setting says).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    app,
  );
  const pace = { minBytes: limits.bodyMinBytes, windowMs: limits.bodyRateWindowMs };
  // Past the cap a new connection closes one that waits on its client, the slowest first, so the descriptors stay
  // free for the store and the log, and slow sockets cannot keep new clients out.
  capConnections(server, limits.maxConnections, pace, onDropped);
  cutSlowBodies(server, pace, logger);
  // No byte either way for this long in the middle of a request: Node destroys the socket (no answer can be
  // sent mid-body). Between requests keepAliveTimeout applies instead.
  server.timeout = limits.idleTimeoutMs;
  answerClientErrors(server, logger);
  answerFailedExpectations(server, logger);
  return server.listen(port, host);
}
