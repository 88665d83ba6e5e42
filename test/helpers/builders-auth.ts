// Builders and assertions shared by the authentication, administration, isolation, concurrency and logging tests.
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import type { IdPair } from '../../src/domain/model';
import { ADMIN_TOKEN, type TestApp } from './app';

import { buildSearch } from './builders-nodesearch';
import { settle, waitFor } from './settling';

export { buildSearch, uniqueCustomer } from './builders-nodesearch';

/** A well-formed secret the service never issued. */
export const unknownToken = (): string => `idl_bearer_${randomBytes(32).toString('base64url')}`;

/** Node keyed by a secure type: schema 'contact' declares email (secure) as its key type. */
export const contactSchema = { id_types: [{ type: 'email', secure: true }, { type: 'device' }] };

export type NodeOperation = '_create' | '_insert' | '_update' | '_upsert' | '_rekeying' | '_delete';

export const nodePath = (customer: string, op: NodeOperation): string => `/v1/${customer}/node/${op}`;
export const searchPath = (customer: string): string => `/v1/${customer}/_search`;

/** The IDs the node holds (sorted by type then id), or undefined when it does not exist. */
export function nodeIds(app: TestApp, customer: string, schema: string, key: IdPair): Promise<IdPair[] | undefined> {
  return app.store.getNodeIds({ customerId: customer, schemaId: schema, key });
}

/** The IDs a search from (schema, key) returns to the administrator (who sees everything). */
export async function linkedIds(app: TestApp, customer: string, schema: string, key: IdPair, token: string = ADMIN_TOKEN): Promise<IdPair[]> {
  const res = await app.call('POST', searchPath(customer), { token, body: buildSearch({ schema, key }) });
  if (res.status !== 200) throw new Error(`search failed: ${res.status} ${res.text}`);
  return (res.body as { results: IdPair[] }).results;
}

export function expectProblem(res: Response, status: number, code: string): void {
  expect({ status: res.status, code: (res.body as { code?: unknown }).code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

/** 401 invalid_token with the RFC 6750 challenge. */
export function expectInvalidToken(res: Response): void {
  expectProblem(res, 401, 'invalid_token');
  expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
}

/** 401 authentication_required with a plain Bearer challenge (no error: nothing was wrong with a token). */
export function expectAuthenticationRequired(res: Response): void {
  expectProblem(res, 401, 'authentication_required');
  expect(res.headers['www-authenticate']).toBe('Bearer');
}

export async function issueLabelledToken(
  app: TestApp,
  customer: string,
  kind: 'bearer' | 'mapi' = 'bearer',
  label?: string,
): Promise<{ token: string; token_id: string; kind: string; label: string | null; created_at: string }> {
  const res = await app.call('POST', `/v1/${customer}/token`, { token: ADMIN_TOKEN, body: { kind, ...(label !== undefined ? { label } : {}) } });
  if (res.status !== 201) throw new Error(`token setup failed: ${res.status} ${res.text}`);
  return res.body as { token: string; token_id: string; kind: string; label: string | null; created_at: string };
}

export async function revokeToken(app: TestApp, customer: string, tokenId: string): Promise<void> {
  const res = await app.call('DELETE', `/v1/${customer}/token/${tokenId}`, { token: ADMIN_TOKEN });
  if (res.status !== 204) throw new Error(`token revocation failed: ${res.status} ${res.text}`);
}

/** The parsed JSON log lines captured so far. */
export function parsedLogs(app: TestApp): Array<Record<string, unknown>> {
  return app.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * The access-log lines of one request. The line is written when the response finishes, which can be a moment
 * after the client has read it, so this waits for it.
 */
export async function accessLinesFor(app: TestApp, requestId: string, timeoutMs = 5000): Promise<Array<Record<string, unknown>>> {
  const lines = () => parsedLogs(app).filter((l) => l.message === 'request' && l.request_id === requestId);
  await waitFor(`the access-log line of request ${requestId}`, () => lines().length > 0, { timeoutMs });
  // The line is written in the response's 'finish' event: a second one (which must never come) would be written in the same turn.
  await settle();
  return lines();
}
