// Closing a connection after an answer sent before the request's body was read: a refusal for want of room, a body
// too slow, an expectation not met. Node closes such a connection at once, and as the client's bytes were left
// unread the operating system resets it rather than closing it: a client still sending its body then sees its
// write fail (EPIPE) and may lose the answer before it has read it. RFC 9112 (section 9.6) closes in stages
// instead, which is what happens here: the answer, then a half-close, then what the client still sends is read and
// dropped until it closes its side, or for LINGER_MS at most.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection closed after such an answer keeps reading, and dropping, what its client still sends. */
export const LINGER_MS = 2_000;

/**
 * Sends `Connection: close` with the answer of `res`, whose request body is left unread, and closes the connection
 * in stages once the answer is sent.
 */
export function closeAfterAnswer(res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  const socket = res.socket;
  if (socket === null) return;
  // Node ends the connection of an answer with `Connection: close` through the socket's destroySoon().
  socket.destroySoon = () => lingerThenClose(socket, res);
}

function lingerThenClose(socket: Socket, res: ServerResponse): void {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // Node drops the rest of an unread body itself; a body that was being piped elsewhere is let flow here.
  res.req.resume();
}
