// The one place where error codes become HTTP statuses and RFC 9457 bodies.
import type { Response } from 'express';
import type { ErrorCode, FieldProblem, ProblemMembers } from '../domain/errors';

const statuses: Record<ErrorCode, number> = {
  malformed_request: 400,
  invalid_json: 400,
  validation_failed: 400,
  key_type_not_in_schema: 400,
  id_type_not_in_schema: 400,
  blocked_id: 422,
  invalid_search: 400,
  authentication_required: 401,
  invalid_token: 401,
  forbidden: 403,
  schema_not_found: 404,
  node_not_found: 404,
  delivery_not_found: 404,
  not_found: 404,
  node_exists: 409,
  id_exists: 409,
  key_id_immutable: 409,
  secure_flag_conflict: 409,
  type_option_conflict: 409,
  secure_type_in_use: 409,
  schema_in_use: 409,
  schema_changed: 409,
  node_id_limit_reached: 409,
  holder_limit_reached: 409,
  ids_shared: 409,
  separated_nodes: 409,
  separation_not_found: 404,
  cap_reached: 409,
  invalid_cursor: 400,
  invalid_import: 400,
  customer_not_empty: 409,
  import_in_progress: 503,
  cursor_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  component_too_large: 422,
  answer_too_large: 422,
  rate_limited: 429,
  request_timeout: 408,
  expectation_failed: 417,
  headers_too_large: 431,
  server_busy: 503,
  store_unavailable: 503,
  internal_error: 500,
};

const titleOf = (code: ErrorCode): string => {
  const words = code.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export const statusOf = (code: ErrorCode): number => statuses[code];

/** The RFC 9457 body of a problem. */
export function problemBody(code: ErrorCode, detail: string, requestId: string, errors?: FieldProblem[], members?: ProblemMembers): string {
  const status = statuses[code];
  return JSON.stringify({
    type: `urn:idlink:problem:${code}`,
    title: titleOf(code),
    status,
    detail,
    code,
    request_id: requestId,
    ...(errors && errors.length > 0 ? { errors } : {}),
    ...members,
  });
}

export function sendProblem(res: Response, code: ErrorCode, detail: string, errors?: FieldProblem[], members?: ProblemMembers): void {
  const status = statuses[code];
  if (status === 401) {
    res.set('WWW-Authenticate', code === 'invalid_token' ? 'Bearer error="invalid_token"' : 'Bearer');
  }
  // Every server_busy says when to retry: those of admission set their own wait; the others (the store refused the
  // memory a request needs) get the admission wait, 5 s.
  if (code === 'server_busy' && res.get('Retry-After') === undefined) res.set('Retry-After', '5');
  res
    .status(status)
    .type('application/problem+json')
    .send(problemBody(code, detail, String(res.locals.requestId ?? ''), errors, members));
}
