// The requests the explorer sends, built without the DOM so that test/explorer/ can check them: paths relative to
// the page (served at /explore, so `v1/…` is /v1/…), and the token only ever in the Authorization header.
import type { components } from '../../src/generated/openapi';
import type { GraphNode, IdPair } from './model';

export type Step = 'ALL' | 'ONE';

/** max_nodes: the page's default and the service's bounds (openapi.yaml GraphRequest). */
export const DEFAULT_MAX_NODES = 500;
export const MAX_NODES_LIMIT = 2000;

/** How many history entries the panel shows (the newest). */
export const HISTORY_COUNT = 20;

export interface GraphQuery {
  customer: string;
  /** The ID to start from: its holders are the start nodes. */
  where: IdPair;
  /** Only the holders in this schema, when given. */
  schema?: string;
  step: Step;
  maxNodes: number;
}

export const graphPath = (customer: string): string => `v1/${encodeURIComponent(customer)}/_graph`;

export function graphBody(query: GraphQuery): components['schemas']['GraphRequest'] {
  const from = { where: { type: query.where.type, id: query.where.id }, ...(query.schema ? { schema: query.schema } : {}) };
  return { match: { from, step: query.step }, max_nodes: query.maxNodes };
}

/** The history of a node, or null when its key is hidden (secure, no token): there is no key to ask about. */
export function historyPath(customer: string, node: GraphNode): string | null {
  if (node.key.id === null) return null;
  const query = new URLSearchParams({ schema: node.schema, key_type: node.key.type, key_id: node.key.id, count: String(HISTORY_COUNT), page: '1' });
  return `v1/${encodeURIComponent(customer)}/node/_history?${query.toString()}`;
}

/** Headers for a request: Authorization only when the person gave a token (an empty one would be a 401). */
export function requestHeaders(token: string, json: boolean): Record<string, string> {
  return { Accept: 'application/json', ...(json ? { 'Content-Type': 'application/json' } : {}), ...(token ? { Authorization: `Bearer ${token}` } : {}) };
}

/** A whole number in [min, max] from an input's text, or the fallback when it is not one. */
export function boundedInteger(text: string, min: number, max: number, fallback: number): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(value)) return fallback;
  return Math.min(max, Math.max(min, value));
}

/** A node as `_why` and `_separate` name it: its schema and key. */
export interface NodeName {
  schema: string;
  key: IdPair;
}

export const whyPath = (customer: string): string => `v1/${encodeURIComponent(customer)}/_why`;
export const separatePath = (customer: string): string => `v1/${encodeURIComponent(customer)}/_separate`;

/** Why are `from` and `to` one person: the shortest chain of shared IDs between the two nodes. */
export const whyBody = (from: NodeName, to: NodeName): components['schemas']['WhyRequest'] => ({ from: nameOf(from), to: nameOf(to) });

/** Keep `a` and `b` from ever sharing an ID, after removing the IDs they share from the side named. */
export const separateBody = (a: NodeName, b: NodeName, removeSharedFrom: 'A' | 'B'): components['schemas']['SeparateRequest'] => ({
  nodes: [nameOf(a), nameOf(b)],
  remove_shared_from: removeSharedFrom,
});

const nameOf = (node: NodeName): NodeName => ({ schema: node.schema, key: { type: node.key.type, id: node.key.id } });
