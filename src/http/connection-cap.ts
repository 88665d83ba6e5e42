// MAX_CONNECTIONS, enforced so that slow clients cannot lock new clients out. Node's own `maxConnections` refuses
// the newest connection; clients that open sockets and send them nothing, or a body a byte at a time, would then
// keep every newcomer out. Here a new connection past the cap instead closes one that waits on its client:
//   1. the oldest one still sending its request (line, headers or body; none begun by the app's answer), or idle
//      between requests, whose bytes since its wait began are fewer than BODY_MIN_BYTES per BODY_RATE_WINDOW_MS;
//   2. else the oldest such one, however fast: a newcomer is the newest, so closing it would take MAX_CONNECTIONS
//      more new connections before it has sent its request;
//   3. else the oldest whose answer its client is not reading as fast as it is written (Node holds bytes the
//      kernel would not take): a client that asks for a large answer and never reads it waits on itself too.
// Only connections the service is working for stay: a complete request being handled (for as long as the app
// takes to answer), and an answer its client reads as fast as it is written (a _bulk import holding a slot
// begins its answer at once, so it counts as such; BULK_MEMORY_LIMIT bounds how many). When every open connection
// is such, the new one is closed.
import type http from 'node:http';
import type { Socket } from 'node:net';

/** Why a connection was closed at the cap (the label of idlink_connections_dropped_total). */
export type ConnectionDropReason = 'oldest_waiting' | 'unread_answer' | 'all_busy';

export const CONNECTION_DROP_REASONS: readonly ConnectionDropReason[] = ['oldest_waiting', 'unread_answer', 'all_busy'];

/** BODY_MIN_BYTES per BODY_RATE_WINDOW_MS: what a connection sending its request must bring to be closed last. */
export interface ClientPace {
  minBytes: number;
  windowMs: number;
}

interface Exchange {
  req: http.IncomingMessage;
  res: http.ServerResponse;
}

interface Connection {
  /** Requests received and not yet answered (more than one when pipelined). */
  exchanges: Set<Exchange>;
  /** When its wait for a complete request began (it connected, or its last answer was sent), and its bytes read then. */
  waitingSince: number;
  bytesReadThen: number;
}

/** What a connection waits for: its client (to send a request, or to read an answer), or the service. */
function waitsOn(socket: Socket, connection: Connection): 'sending' | 'reading' | 'service' {
  let answering = false;
  for (const { req, res } of connection.exchanges) {
    if (res.headersSent) answering = true;
    else if (req.complete) return 'service';
  }
  if (!answering) return 'sending';
  return socket.writableLength > 0 ? 'reading' : 'service';
}

/**
 * Whether a connection sending its request is behind `pace` on average since its wait began. One younger than a
 * window is not judged yet; bytes the app has not read yet count as brought (then the service is behind, not the client).
 */
function behind(socket: Socket, connection: Connection, pace: ClientPace, now: number): boolean {
  const waited = now - connection.waitingSince;
  if (waited < pace.windowMs) return false;
  for (const { req } of connection.exchanges) if (req.readableLength > 0) return false;
  return (socket.bytesRead - connection.bytesReadThen) * pace.windowMs < pace.minBytes * waited;
}

export function capConnections(
  server: http.Server,
  maxConnections: number,
  pace: ClientPace,
  onDropped: (reason: ConnectionDropReason) => void = () => undefined,
): void {
  /** Every open connection, in the order their waits began (a Map keeps insertion order). */
  const open = new Map<Socket, Connection>();

  const startWaiting = (socket: Socket, exchanges: Set<Exchange>) => {
    open.delete(socket);
    open.set(socket, { exchanges, waitingSince: Date.now(), bytesReadThen: socket.bytesRead });
  };

  /** The connection to close for a new one, by the rules at the top of this file; undefined when none may be. */
  const toClose = (): { socket: Socket; reason: ConnectionDropReason } | undefined => {
    const now = Date.now();
    let oldestSending: Socket | undefined;
    let oldestUnread: Socket | undefined;
    for (const [socket, connection] of open) {
      const waiting = waitsOn(socket, connection);
      if (waiting === 'sending') {
        if (behind(socket, connection, pace, now)) return { socket, reason: 'oldest_waiting' };
        oldestSending ??= socket;
        // Waits began in this order: none after one younger than a window can be behind.
        if (now - connection.waitingSince < pace.windowMs) break;
      } else if (waiting === 'reading') oldestUnread ??= socket;
    }
    if (oldestSending) return { socket: oldestSending, reason: 'oldest_waiting' };
    if (oldestUnread) return { socket: oldestUnread, reason: 'unread_answer' };
    return undefined;
  };

  server.on('connection', (socket: Socket) => {
    if (open.size >= maxConnections) {
      const closing = toClose();
      if (!closing) {
        socket.destroy();
        onDropped('all_busy');
        return;
      }
      open.delete(closing.socket);
      closing.socket.destroy();
      onDropped(closing.reason);
    }
    startWaiting(socket, new Set());
    socket.once('close', () => open.delete(socket));
  });

  // 'request' fires once a request's line and headers are complete, for each pipelined request as it is parsed;
  // 'close' fires once its answer is handed to the operating system, or the connection is gone.
  const track = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    const connection = open.get(socket);
    if (!connection) return;
    // Its wait goes on (and its place in line stays) until its body is complete or its answer begins.
    const exchange = { req, res };
    connection.exchanges.add(exchange);
    res.once('close', () => {
      const current = open.get(socket);
      if (!current) return;
      current.exchanges.delete(exchange);
      // After an answer that ends the connection, Node has begun closing it: its slot is free.
      if (socket.destroyed || socket.writableEnded) {
        open.delete(socket);
        return;
      }
      // Its wait for the next request starts now: to the back of the line.
      if (current.exchanges.size === 0) startWaiting(socket, current.exchanges);
    });
  };
  // Before the app's own listener, which may answer at once.
  server.prependListener('request', track);
  // A request with an unsupported Expect header goes here instead of 'request' (answerFailedExpectations).
  server.prependListener('checkExpectation', track);
}
