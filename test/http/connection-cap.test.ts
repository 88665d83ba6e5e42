// Which connection the cap closes for a new one (src/http/connection-cap.ts): one waiting on its client, the slowest
// sender first, whatever stage its request is at; then one whose answer its client does not read; never one whose
// request the service is working on. A bare Node server with the cap and nothing else, so each connection's state
// is exactly what the test makes it.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { capConnections, type ClientPace, type ConnectionDropReason } from '../../src/http/connection-cap';
import { waitFor } from '../helpers/settling';

interface Client {
  socket: net.Socket;
  isClosed(): boolean;
  closed: Promise<void>;
}

const running: Array<{ server: http.Server; clients: net.Socket[]; timers: NodeJS.Timeout[] }> = [];

afterEach(async () => {
  for (const { server, clients, timers } of running.splice(0)) {
    for (const timer of timers) clearInterval(timer);
    for (const socket of clients) socket.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Requests the server is handling and has not answered, by path. */
type Held = Map<string, http.ServerResponse[]>;

/**
 * A server with the cap, which answers GET /big with 64 MB (more than a client that never reads can take in), holds
 * every other request unanswered in `held`, and counts the connections the cap closed.
 */
async function capped(maxConnections: number, pace: ClientPace) {
  const held: Held = new Map();
  const dropped: ConnectionDropReason[] = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/big') {
      res.end(Buffer.alloc(64 * 1024 * 1024));
      return;
    }
    // Read the body, as an app would, so that only the client decides its pace.
    req.resume();
    held.set(req.url ?? '', [...(held.get(req.url ?? '') ?? []), res]);
  });
  capConnections(server, maxConnections, pace, (reason) => dropped.push(reason));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const entry = { server, clients: [] as net.Socket[], timers: [] as NodeJS.Timeout[] };
  running.push(entry);

  /** A client that connects, sends `opening`, then `trickle` every `everyMs` if given. */
  const connect = async (opening: string, trickle?: { text: string; everyMs: number }): Promise<Client> => {
    const socket = net.connect(port, '127.0.0.1');
    entry.clients.push(socket);
    socket.on('error', () => undefined);
    let isClosed = false;
    const closed = new Promise<void>((resolve) =>
      socket.once('close', () => {
        isClosed = true;
        resolve();
      }),
    );
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(opening);
    if (trickle) entry.timers.push(setInterval(() => socket.writable && socket.write(trickle.text), trickle.everyMs));
    return { socket, isClosed: () => isClosed, closed };
  };

  /** Resolves once the server has received `count` requests for `path`. */
  const handling = async (path: string, count = 1) => {
    return waitFor(`${count} requests for ${path}`, () => ((held.get(path)?.length ?? 0) >= count ? held.get(path) : undefined));
  };

  return { connect, handling, dropped, held };
}

const slowPost = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n`;

describe('the connection cap', () => {
  test('when the cap is reached, then the oldest connection behind the pace is closed first, before an older one that keeps up and before younger ones; then the next behind it', async () => {
    const pace = { minBytes: 1000, windowMs: 300 };
    const { connect, dropped } = await capped(4, pace);
    // 10 KB/s, far above 1000 bytes per 300 ms: an upload on a good line.
    const fast = await connect(slowPost('/fast'), { text: 'a'.repeat(500), everyMs: 50 });
    // A byte every 100 ms: the slow body of the attack.
    const slow = await connect(slowPost('/slow'), { text: 'a', everyMs: 100 });
    // Part of a request line, and nothing more.
    const partial = await connect('GET /partial HT');
    // The pace judges a connection once it has waited a whole window; the cap is not reached until then.
    // Fixed sleep: the server marks no window's end; the time a connection has been slow is what is judged.
    await new Promise((resolve) => setTimeout(resolve, 2 * pace.windowMs));
    const young = await connect(slowPost('/young'));

    const first = await connect('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await slow.closed;
    expect([fast.isClosed(), partial.isClosed(), young.isClosed(), first.isClosed()]).toEqual([false, false, false, false]);

    const second = await connect('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await partial.closed;
    expect([fast.isClosed(), young.isClosed(), first.isClosed(), second.isClosed()]).toEqual([false, false, false, false]);
    expect(dropped).toEqual(['oldest_waiting', 'oldest_waiting']);
  });

  test('when the only connections waiting on their clients are still sending a body, then the oldest of them is closed for a new one, and one whose complete request is being handled is not, however old', async () => {
    const { connect, handling, dropped } = await capped(2, { minBytes: 1000, windowMs: 60_000 });
    const handled = await connect('POST /handled HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello');
    await handling('/handled');
    const sending = await connect(slowPost('/sending'), { text: 'a', everyMs: 100 });

    const newcomer = await connect('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await sending.closed;
    expect(handled.isClosed()).toBe(false);
    expect(newcomer.isClosed()).toBe(false);
    expect(dropped).toEqual(['oldest_waiting']);
  });

  test('when every other connection is busy, then one whose answer its client does not read is closed for a new one; when every one has a request being handled, the new one is closed', async () => {
    const { connect, handling, dropped, held } = await capped(2, { minBytes: 1000, windowMs: 60_000 });
    // Asks for a large answer and never reads it.
    const reader = await connect('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
    reader.socket.pause();
    const handled = await connect('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await handling('/hold');

    const newcomer = await connect('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await handling('/hold', 2);
    expect(dropped).toEqual(['unread_answer']);
    // A paused socket does not notice that it was closed until it reads again.
    reader.socket.resume();
    await reader.closed;

    const refused = await connect('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await refused.closed;
    expect(dropped).toEqual(['unread_answer', 'all_busy']);
    expect([handled.isClosed(), newcomer.isClosed()]).toEqual([false, false]);

    // Both held requests are still answered.
    const answers = [handled, newcomer].map(
      (client) =>
        new Promise<string>((resolve) => {
          let text = '';
          client.socket.setEncoding('utf8').on('data', (chunk: string) => {
            text += chunk;
            if (text.includes('done')) resolve(text);
          });
        }),
    );
    for (const res of held.get('/hold') ?? []) res.end('done');
    for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*done/);
  });
});
