// MAX_CONNECTIONS, enforced so that slow sockets cannot lock new clients out. Node's own `maxConnections`
// refuses the newest connection; a client that opens sockets and never finishes a request line would then keep
// every newcomer out until the header timeout frees a slot. Here a new connection past the cap instead closes
// the connection that has waited longest without a complete request: one still sending its first request line
// and headers, or a keep-alive connection idle since its last answer. A connection whose request is being
// handled or whose answer is being sent is never closed; when every open one is such, the new one is.
import type http from 'node:http';
import type { Socket } from 'node:net';

/** Why a connection was closed at the cap (the label of idlink_connections_dropped_total). */
export type ConnectionDropReason = 'oldest_waiting' | 'all_busy';

export const CONNECTION_DROP_REASONS: readonly ConnectionDropReason[] = ['oldest_waiting', 'all_busy'];

export function capConnections(server: http.Server, maxConnections: number, onDropped: (reason: ConnectionDropReason) => void = () => undefined): void {
  /** Every open connection, with its requests received and not yet answered (more than one when pipelined). */
  const inFlight = new Map<Socket, number>();
  /** The open connections without a request in progress, longest waiting first (a Set keeps insertion order). */
  const waiting = new Set<Socket>();

  const forget = (socket: Socket) => {
    inFlight.delete(socket);
    waiting.delete(socket);
  };

  server.on('connection', (socket: Socket) => {
    if (inFlight.size >= maxConnections) {
      const oldest = waiting.values().next();
      if (oldest.done === true) {
        socket.destroy();
        onDropped('all_busy');
        return;
      }
      forget(oldest.value);
      oldest.value.destroy();
      onDropped('oldest_waiting');
    }
    inFlight.set(socket, 0);
    waiting.add(socket);
    socket.once('close', () => forget(socket));
  });

  // 'request' fires once a request's line and headers are complete, for each pipelined request as it is parsed;
  // 'close' fires once its answer is handed to the operating system, or the connection is gone.
  const track = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    const count = inFlight.get(socket);
    if (count === undefined) return;
    inFlight.set(socket, count + 1);
    waiting.delete(socket);
    res.once('close', () => {
      const current = inFlight.get(socket);
      if (current === undefined) return;
      // After an answer that ends the connection, Node has begun closing it: its slot is free.
      if (socket.destroyed || socket.writableEnded) {
        forget(socket);
        return;
      }
      inFlight.set(socket, current - 1);
      // Its wait for the next request starts now: to the back of the line.
      if (current === 1) waiting.add(socket);
    });
  };
  // Before the app's own listener, which may answer at once.
  server.prependListener('request', track);
  // A request with an unsupported Expect header goes here instead of 'request' (answerFailedExpectations).
  server.prependListener('checkExpectation', track);
}
