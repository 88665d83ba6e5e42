// Builders and checks for the node, search and request-error API tests.
// `buildX(overrides)` gives a valid default body to change one thing in; factories.ts has buildNode.
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import type { TestApp } from './app';
import type { IdPairBody } from './factories';

let counter = 0;
/** A customer id no other test uses, so tests never see each other's data (also in a shared Neo4j). */
export function uniqueCustomer(prefix = 'cust'): string {
  counter += 1;
  return `${prefix}-${counter}-${randomBytes(4).toString('hex')}`;
}

export const id = (type: string, value: string): IdPairBody => ({ type, id: value });

export function buildInsert(overrides: Partial<{ schema: string; key: IdPairBody; ids: IdPairBody[] }> = {}) {
  return { schema: 'member', key: id('member_id', 'm-1'), ids: [id('cookie', 'c-1')], ...overrides };
}

export function buildUpdate(overrides: Partial<{ schema: string; key: IdPairBody; set: IdPairBody; where: IdPairBody }> = {}) {
  return { schema: 'member', key: id('member_id', 'm-1'), set: id('device', 'd-2'), where: id('device', 'd-1'), ...overrides };
}

export function buildRekey(overrides: Partial<{ schema: string; key: IdPairBody; set: { id: string } }> = {}) {
  return { schema: 'member', key: id('member_id', 'm-1'), set: { id: 'm-2' }, ...overrides };
}

export function buildDelete(overrides: Partial<{ schema: string; key: IdPairBody; where: IdPairBody }> = {}) {
  return { schema: 'member', key: id('member_id', 'm-1'), ...overrides };
}

export interface SearchFrom {
  schema?: string;
  key?: IdPairBody;
  where?: IdPairBody;
  exclude?: boolean;
}

export function buildSearch(
  from: SearchFrom = { schema: 'member', key: id('member_id', 'm-1') },
  rest: Partial<{ step: 'ONE' | 'ALL'; having: { type?: string }; limit: number }> = {},
) {
  const { limit, ...match } = rest;
  return { match: { from, ...match }, ...(limit !== undefined ? { limit } : {}) };
}

/** The IDs a node holds as the store has them (sorted by type then id), or undefined when it does not exist. */
export function storedIds(app: TestApp, customerId: string, key: IdPairBody, schemaId = 'member') {
  return app.store.getNodeIds({ customerId, schemaId, key });
}

/** Runs a search through the API and returns its body; fails unless the answer is 200. */
export async function searchIds(app: TestApp, customer: string, body: object, token?: string): Promise<{ results: IdPairBody[]; total: number }> {
  const res = await app.call('POST', `/v1/${customer}/_search`, { body, ...(token ? { token } : {}) });
  if (res.status !== 200) throw new Error(`search failed: ${res.status} ${res.text}`);
  return res.body as { results: IdPairBody[]; total: number };
}

/** Text that would betray internals: stack frames, SQL, SQLite error codes, source file positions. */
const LEAKS = /SQLITE|SELECT|\bat \S+ \(|\n\s+at |\.ts:\d+|\.js:\d+|"stack"/;

/**
 * An RFC 9457 problem with the given status and code: the right media type, every documented field,
 * `type` urn:idlink:problem:<code>, the request id of the X-Request-Id header, and no internals.
 */
export function expectProblem(res: Response, status: number, code: string): void {
  expect({ status: res.status, code: (res.body as { code?: unknown }).code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.body as Record<string, unknown>;
  expect(body).toEqual(
    expect.objectContaining({
      type: `urn:idlink:problem:${code}`,
      title: expect.any(String),
      status,
      detail: expect.any(String),
      code,
      request_id: res.headers['x-request-id'],
    }),
  );
  expect(String(body.request_id).length).toBeGreaterThan(0);
  expect(res.text).not.toMatch(LEAKS);
}

/** The paths listed in a problem's `errors`. */
export const errorPaths = (res: Response): string[] => ((res.body as { errors?: Array<{ path: string }> }).errors ?? []).map((e) => e.path);
