// A whole _bulk request through the real HTTP stack, its NDJSON answer kept as text (supertest would not parse it).
import http from 'node:http';
import request from 'supertest';
import type { components } from '../../src/generated/openapi';
import { contractProblems } from './contract';

/** One NDJSON line of a _bulk answer. */
export type BulkResult = components['schemas']['BulkResult'];

export interface PostBulkOptions {
  token?: string;
  contentType?: string;
  /** Sent as Content-Encoding; the body is sent as given (compress it first). */
  contentEncoding?: string;
}

export async function postBulk(baseUrl: string, customer: string, body: string | Buffer, options: PostBulkOptions = {}): Promise<request.Response> {
  let req = request(baseUrl)
    .post(`/v1/${customer}/node/_bulk`)
    .set('Content-Type', options.contentType ?? 'application/x-ndjson');
  if (options.token) req = req.set('Authorization', `Bearer ${options.token}`);
  if (options.contentEncoding) req = req.set('Content-Encoding', options.contentEncoding);
  const res = await req
    .buffer(true)
    .parse((response, done) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => done(null, text));
    })
    .send(body);
  res.text = res.body as string;
  return res;
}

/**
 * postBulk, then the answer checked against openapi.yaml (a problem's body parsed first), and the result lines of a
 * 200 answer (none for any other status).
 */
export async function bulkChecked(
  baseUrl: string,
  customer: string,
  body: string | Buffer,
  options: PostBulkOptions = {},
): Promise<{ res: request.Response; results: BulkResult[] }> {
  const res = await postBulk(baseUrl, customer, body, options);
  if (String(res.headers['content-type']).startsWith('application/problem+json')) res.body = JSON.parse(res.text);
  expect(contractProblems('POST', `/v1/${customer}/node/_bulk`, res)).toEqual([]);
  const results =
    res.status === 200
      ? res.text
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as BulkResult)
      : [];
  return { res, results };
}

/** A _bulk request whose body is written a piece at a time; `received` is what came back so far. */
export interface OpenBulk {
  send(text: string | Buffer): void;
  end(text?: string | Buffer): void;
  /** Resolves with the response's status once its headers arrived (0 when the connection closed without an answer). */
  status: Promise<number>;
  headers: Promise<http.IncomingHttpHeaders>;
  received(): string;
  /** Resolves when the response has ended or the connection closed. */
  closed: Promise<void>;
  /** Resolves once `count` complete lines have come back, or with fewer once the connection closed. */
  lines(count: number): Promise<string[]>;
}

export interface OpenBulkOptions {
  token?: string;
  /** The client address to connect from (any of 127.0.0.0/8 reaches a server on 127.0.0.1). */
  localAddress?: string;
  headers?: Record<string, string>;
}

export function openBulk(baseUrl: string, customer: string, options: OpenBulkOptions = {}): OpenBulk {
  const req = http.request(`${baseUrl}/v1/${customer}/node/_bulk`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-ndjson', ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}), ...options.headers },
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
  let text = '';
  let isClosed = false;
  const waiting: Array<() => void> = [];
  const wakeAll = () => {
    for (const wake of waiting.splice(0)) wake();
  };
  let onHeaders: (res: http.IncomingMessage | undefined) => void = () => undefined;
  const response = new Promise<http.IncomingMessage | undefined>((resolve) => (onHeaders = resolve));
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (markClosed = resolve)).then(() => {
    isClosed = true;
    onHeaders(undefined);
    wakeAll();
  });
  req.on('response', (res) => {
    onHeaders(res);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
      wakeAll();
    });
    res.on('end', markClosed);
    res.on('close', markClosed);
  });
  req.on('error', markClosed);
  req.on('close', markClosed);
  // Once the server has answered and reset the connection (a body too slow), the request may no longer listen to its
  // socket: a write then fails there, and is no fault of the test.
  req.on('socket', (socket) => socket.on('error', markClosed));
  req.flushHeaders();
  const complete = () => text.split('\n').slice(0, -1);
  return {
    send: (chunk) => void (isClosed ? undefined : req.write(chunk)),
    end: (chunk) => void (isClosed ? undefined : chunk === undefined ? req.end() : req.end(chunk)),
    status: response.then((res) => res?.statusCode ?? 0),
    headers: response.then((res) => res?.headers ?? {}),
    received: () => text,
    closed,
    lines: async (count) => {
      while (complete().length < count && !isClosed) await new Promise<void>((resolve) => waiting.push(resolve));
      return complete();
    },
  };
}
