// Builders for request bodies and fixtures: `buildX(overrides)` gives a valid default to change one thing in.
import type { TestApp } from './app';
import { ADMIN_TOKEN } from './app';
import type { components } from '../../src/generated/openapi';

export type IdPairBody = components['schemas']['IdPair'];

/** The schema most tests use: member_id and device are open, email is secure. */
export const memberSchema = {
  id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'cookie' }, { type: 'email', secure: true }],
};

export function buildNode(overrides: Partial<{ schema: string; key: IdPairBody; ids: IdPairBody[] }> = {}) {
  return { schema: 'member', key: { type: 'member_id', id: 'm-1' }, ids: [{ type: 'device', id: 'd-1' }], ...overrides };
}

export async function putSchema(app: TestApp, customer: string, schemaId = 'member', body: object = memberSchema): Promise<void> {
  const res = await app.call('PUT', `/v1/${customer}/schema/${schemaId}`, { token: ADMIN_TOKEN, body });
  if (res.status !== 201 && res.status !== 200) throw new Error(`schema setup failed: ${res.status} ${res.text}`);
}

export async function issueToken(app: TestApp, customer: string, kind: 'bearer' | 'mapi' = 'bearer'): Promise<{ token: string; token_id: string }> {
  const res = await app.call('POST', `/v1/${customer}/token`, { token: ADMIN_TOKEN, body: { kind } });
  if (res.status !== 201) throw new Error(`token setup failed: ${res.status} ${res.text}`);
  return res.body as { token: string; token_id: string };
}

export async function createNode(app: TestApp, customer: string, body: object, token?: string): Promise<void> {
  const res = await app.call('POST', `/v1/${customer}/node/_create`, { body, ...(token ? { token } : {}) });
  if (res.status !== 201) throw new Error(`node setup failed: ${res.status} ${res.text}`);
}
