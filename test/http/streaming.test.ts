// The helpers of answers written a piece at a time (src/http/streaming.ts), on a real server and real sockets: a
// client that goes away at the wrong moment must never leave a stream or an export waiting for it, or the call
// keeps its place among CHANGES_MAX_WAITING or EXPORTS_MAX_RUNNING for good.
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import net from 'node:net';
import express, { type Request, type Response } from 'express';
import { abandonment, drained } from '../../src/http/streaming';

/** What closes the servers of a test, after it. */
const after: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(after.splice(0).map((close) => close()));
});

/** A server whose one route hands its request and answer to `handle`. */
async function serving(handle: (req: Request, res: Response) => Promise<void>): Promise<{ port: number; close: () => Promise<void> }> {
  const app = express();
  app.get('/', (req, res) => {
    void handle(req, res);
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A client that asks for / and reads nothing of the answer. */
function silentClient(port: number): net.Socket {
  const socket = net.connect(port, '127.0.0.1');
  socket.pause();
  socket.on('error', () => undefined);
  socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
  return socket;
}

const closed = (res: Response) => new Promise<void>((resolve) => (res.destroyed ? resolve() : res.once('close', () => resolve())));

/** Writes until the answer's buffers are full: what a client that does not read leaves. */
function fill(res: Response): void {
  res.status(200).set('Content-Type', 'text/plain');
  const chunk = 'x'.repeat(64 * 1024);
  for (let i = 0; i < 10_000 && res.write(chunk); i += 1);
  expect(res.writableNeedDrain).toBe(true);
}

describe('answers written a piece at a time', () => {
  test('when the client went away before the handler asked, then its abandonment is aborted at once', async () => {
    let socket: net.Socket | undefined;
    const asked = new Promise<boolean>((resolve, reject) => {
      void serving(async (req, res) => {
        socket?.destroy();
        await closed(res);
        resolve(abandonment(req, res).aborted);
      }).then((server) => {
        socket = silentClient(server.port);
        after.push(server.close);
      }, reject);
    });
    await expect(asked).resolves.toBe(true);
  });

  test('when the client goes away while the answer waits to drain, then drained resolves, whether or not anything aborted', async () => {
    let socket: net.Socket | undefined;
    const waited = new Promise<string>((resolve, reject) => {
      void serving(async (_req, res) => {
        fill(res);
        const waiting = drained(res, new AbortController().signal);
        socket?.destroy();
        await waiting;
        resolve('drained resolved');
      }).then((server) => {
        socket = silentClient(server.port);
        after.push(server.close);
      }, reject);
    });
    await expect(waited).resolves.toBe('drained resolved');
  });

  test('when the answer is closed already, or the signal aborted already, then drained resolves at once', async () => {
    let socket: net.Socket | undefined;
    const waited = new Promise<string[]>((resolve, reject) => {
      void serving(async (_req, res) => {
        fill(res);
        const aborted = new AbortController();
        aborted.abort();
        // Still open and full, but the signal aborted before the wait began (a stream whose time was up).
        await drained(res, aborted.signal);
        socket?.destroy();
        await closed(res);
        // Closed, and no signal will ever abort: a closed answer never drains.
        await drained(res, new AbortController().signal);
        resolve(['aborted signal', 'closed answer']);
      }).then((server) => {
        socket = silentClient(server.port);
        after.push(server.close);
      }, reject);
    });
    await expect(waited).resolves.toEqual(['aborted signal', 'closed answer']);
  });
});
