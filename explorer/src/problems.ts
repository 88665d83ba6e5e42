// What the page says when a request fails: the service's problem document (RFC 9457) made readable, with a hint
// for what the person can do about it. No DOM here, so test/explorer/ checks every case.

export interface ShownProblem {
  title: string;
  detail: string;
  /** What to try next, when the page knows. */
  hint?: string;
  /** The service's request id: what an operator looks up in the logs. */
  requestId?: string;
  /** Each validation error, `path: message`. */
  errors: string[];
}

interface ProblemBody {
  title?: unknown;
  detail?: unknown;
  code?: unknown;
  request_id?: unknown;
  errors?: unknown;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** What to try next, by status and code. */
function hintFor(status: number, code: string | undefined, retryAfter: string | null, hadToken: boolean): string | undefined {
  if (status === 401 && code === 'invalid_token') return 'The token was not accepted: paste a bearer token of this customer, or the administrator token.';
  if (status === 401)
    return hadToken
      ? 'Paste a bearer token of this customer, or the administrator token.'
      : 'This needs a token: paste a bearer token of this customer, or the administrator token.';
  if (status === 403) return 'The token belongs to another customer: check the customer id.';
  if (status === 404) return 'Check the customer id and the schema.';
  if (status === 422 && code === 'component_too_large') return 'Start with step ONE to see the nearest nodes only.';
  if (status === 429) return retryAfter ? `Try again in ${retryAfter} s.` : 'Try again in a moment.';
  if (status >= 500) return 'Try again; if it persists, give the request id to whoever runs the service.';
  return undefined;
}

/** A failed answer as the page shows it; `body` is the parsed JSON, or undefined when it was not JSON. */
export function describeProblem(status: number, body: unknown, retryAfter: string | null, hadToken: boolean): ShownProblem {
  const problem: ProblemBody = typeof body === 'object' && body !== null ? body : {};
  const code = text(problem.code);
  const errors = Array.isArray(problem.errors)
    ? problem.errors.map((e: { path?: unknown; message?: unknown }) => [text(e?.path), text(e?.message)].filter(Boolean).join(': ')).filter(Boolean)
    : [];
  const hint = hintFor(status, code, retryAfter, hadToken);
  const requestId = text(problem.request_id);
  return {
    title: text(problem.title) ?? `The service answered ${status}`,
    detail: text(problem.detail) ?? 'The answer was not a problem document (a proxy in between?).',
    ...(hint ? { hint } : {}),
    ...(requestId ? { requestId } : {}),
    errors,
  };
}

/** fetch itself failed: no answer at all. */
export const networkProblem = (): ShownProblem => ({
  title: 'The service could not be reached',
  detail: 'The request got no answer: the service may be down, or the network between it and this browser.',
  hint: 'Reload the page when the service is back.',
  errors: [],
});

/** Belt and braces: whatever the page shows passes through here, so that the token can never be shown. */
export function redact(shown: string, token: string): string {
  return token === '' ? shown : shown.split(token).join('•••');
}
