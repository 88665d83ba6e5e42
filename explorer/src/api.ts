// The calls the page makes, through fetch, relative to the page. Every failure comes back as a ShownProblem
// (problems.ts), never as an exception, so the page has one way to show it.
import type { components } from '../../src/generated/openapi';
import type { GraphAnswer, WhyAnswer } from './model';
import { describeProblem, networkProblem, type ShownProblem } from './problems';
import { type GraphQuery, graphBody, graphPath, type NodeName, requestHeaders, separateBody, separatePath, whyBody, whyPath } from './requests';

export type Outcome<T> = { ok: true; value: T } | { ok: false; status: number | null; problem: ShownProblem };

/** One history entry of GET /v1/{customer_id}/node/_history (types generated from openapi.yaml). */
export type HistoryEntry = components['schemas']['HistoryEntry'];
export type HistoryId = components['schemas']['HistoryId'];
export type SeparateResult = components['schemas']['SeparateResult'];

async function call<T>(path: string, token: string, body?: object): Promise<Outcome<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: requestHeaders(token, body !== undefined),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      // Nothing here should be cached by the browser: answers depend on the token.
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    return { ok: false, status: null, problem: networkProblem() };
  }
  const parsed: unknown = await response.json().catch(() => undefined);
  if (response.ok && parsed !== undefined) return { ok: true, value: parsed as T };
  return { ok: false, status: response.status, problem: describeProblem(response.status, parsed, response.headers.get('Retry-After'), token !== '') };
}

export const fetchGraph = (query: GraphQuery, token: string): Promise<Outcome<GraphAnswer>> =>
  call<GraphAnswer>(graphPath(query.customer), token, graphBody(query));

export const fetchHistory = (path: string, token: string): Promise<Outcome<HistoryEntry[]>> => call<HistoryEntry[]>(path, token);

export const fetchWhy = (customer: string, from: NodeName, to: NodeName, token: string): Promise<Outcome<WhyAnswer>> =>
  call<WhyAnswer>(whyPath(customer), token, whyBody(from, to));

export const postSeparate = (customer: string, a: NodeName, b: NodeName, removeSharedFrom: 'A' | 'B', token: string): Promise<Outcome<SeparateResult>> =>
  call<SeparateResult>(separatePath(customer), token, separateBody(a, b, removeSharedFrom));
