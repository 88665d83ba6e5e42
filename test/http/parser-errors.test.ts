// Requests Node's HTTP parser refuses before Express sees them (oversized headers, broken framing, too slow)
// still get a problem+json answer, a log line without the bytes sent, and a closed connection; the server goes on.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from '../../src/http/server';
import { createLogger } from '../../src/logger';
import { MemoryTransport, startApp, type TestApp } from '../helpers/app';
import { isDocumentedProblem } from '../helpers/contract';

const SECRET = 'parser-secret-token-7f3a9c';

interface RawAnswer {
  statusLine: string;
  headers: Record<string, string>;
  body: string;
}

/** Writes `bytes` on a fresh connection and reads until the server closes it. */
function sendRaw(port: number, bytes: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ statusLine, headers, body });
    });
    socket.write(bytes);
  });
}

function expectParserProblem(answer: RawAnswer, status: number, code: string): void {
  expect(answer.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(answer.headers['content-type']).toBe('application/problem+json');
  expect(answer.headers.connection).toBe('close');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  const problem = JSON.parse(answer.body) as Record<string, unknown>;
  expect(problem).toMatchObject({ type: `urn:idlink:problem:${code}`, status, code, request_id: answer.headers['x-request-id'] });
  expect(isDocumentedProblem(problem)).toBe(true);
}

describe('requests the HTTP parser refuses', () => {
  let app: TestApp;
  let port: number;
  beforeAll(async () => {
    app = await startApp();
    port = Number(new URL(app.baseUrl).port);
  });
  afterAll(() => app.close());

  test('when the headers exceed 16 KB, then 431 headers_too_large as a problem, and no header value is logged', async () => {
    const answer = await sendRaw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${SECRET}\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectParserProblem(answer, 431, 'headers_too_large');
    const line = app.logs.find((l) => l.includes('refused by the HTTP parser') && l.includes(JSON.parse(answer.body).request_id));
    expect(line).toEqual(expect.stringContaining('HPE_HEADER_OVERFLOW'));
    expect(app.logs.join('\n')).not.toContain(SECRET);
  });

  test('when the request is not HTTP, then 400 malformed_request as a problem', async () => {
    expectParserProblem(await sendRaw(port, 'HELLO THERE\r\n\r\n'), 400, 'malformed_request');
    expectParserProblem(
      await sendRaw(port, 'POST /v1/acme/_search HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!'),
      400,
      'malformed_request',
    );
  });

  test('when the Expect header is not 100-continue, then 417 expectation_failed as a problem, nothing runs, and the server goes on', async () => {
    const body = JSON.stringify({ schema: 'member', key: { type: 'member_id', id: 'm-expect' } });
    const answer = await sendRaw(
      port,
      `POST /v1/acme-expect/node/_create HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expectParserProblem(answer, 417, 'expectation_failed');
    expect(await app.store.getNodeIds({ customerId: 'acme-expect', schemaId: 'member', key: { type: 'member_id', id: 'm-expect' } })).toBeUndefined();
    expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
  });

  test('when such a request has been refused, then the server goes on answering', async () => {
    await sendRaw(port, 'HELLO THERE\r\n\r\n');
    const res = await app.call('GET', '/healthz');
    expect(res.status).toBe(200);
  });
});

describe('a request that does not arrive in time', () => {
  test('when the headers are not complete within the headers timeout, then 408 request_timeout as a problem', async () => {
    const memory = new MemoryTransport();
    const logger = createLogger({ level: 'info', pretty: false, transports: [memory] });
    // Node's defaults (60 s, checked every 30 s) shortened; the handler is the one serve() installs.
    const server = http.createServer({ headersTimeout: 200, requestTimeout: 300, connectionsCheckingInterval: 50 }, (_req, res) => res.end());
    answerClientErrors(server, logger);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const answer = await sendRaw((server.address() as AddressInfo).port, 'GET / HTTP/1.1\r\nHost: x\r\n');
      expectParserProblem(answer, 408, 'request_timeout');
      expect(memory.lines.some((l) => l.includes('ERR_HTTP_REQUEST_TIMEOUT'))).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
