// A connection answered before its request body was read is closed in stages (src/http/closing.ts): a client that
// goes on sending its body after the answer has arrived meets no reset, so it cannot lose the answer to one.
import net from 'node:net';
import { startApp, type TestApp } from '../helpers/app';

/** 256 KB, more than the client's socket hands to the server at once while the server does not read. */
const PART = 'x'.repeat(256 * 1024);

interface Outcome {
  answer: string;
  /** The error the client's socket met, if any (a reset: ECONNRESET or EPIPE). */
  error: string | undefined;
}

/**
 * Sends `head` and a first part of a body of three parts, waits for the answer, then sends the other two parts and
 * ends: what the client read, and the error its socket met.
 */
function sendOnAfterAnswer(port: number, head: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let error: string | undefined;
    let sentRest = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (sentRest || !answer.includes('\r\n\r\n')) return;
      sentRest = true;
      socket.write(PART);
      socket.end(PART);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => resolve({ answer, error }));
    socket.write(head);
    socket.write(PART);
  });
}

const headOf = (extra: string) =>
  `POST /v1/acme-closing/node/_create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}Content-Length: ${3 * PART.length}\r\n\r\n`;

describe('a connection answered before its body was read', () => {
  let app: TestApp;
  let port: number;
  beforeAll(async () => {
    app = await startApp({ env: { BODY_TIMEOUT_MS: '300' } });
    port = Number(new URL(app.baseUrl).port);
  });
  afterAll(() => app.close());

  test('when Node refuses it (417 expectation_failed) and the client goes on sending, then the client reads the answer and its connection ends without a reset', async () => {
    const { answer, error } = await sendOnAfterAnswer(port, headOf('Expect: foo\r\n'));
    expect(answer).toMatch(/^HTTP\/1\.1 417 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(error).toBeUndefined();
  });

  test('when the app refuses it (408 request_timeout, the body not complete in time) and the client goes on sending, then the client reads the answer and its connection ends without a reset', async () => {
    const { answer, error } = await sendOnAfterAnswer(port, headOf(''));
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(error).toBeUndefined();
  });
});

test('when the client neither ends nor sends more after such an answer, then the server closes the connection itself', async () => {
  const app = await startApp();
  try {
    const port = Number(new URL(app.baseUrl).port);
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(headOf('Expect: foo\r\n'));
    socket.write(PART);
    // Resolves once the server has closed its side for good (LINGER_MS after the answer); the test's timeout fails it otherwise.
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 417 /);
  } finally {
    await app.close();
  }
}, 20_000);
