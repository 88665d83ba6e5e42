// Domain errors are values with a stable code; the HTTP layer alone turns a code into a status.

export type ErrorCode =
  | 'malformed_request'
  | 'invalid_json'
  | 'validation_failed'
  | 'key_type_not_in_schema'
  | 'id_type_not_in_schema'
  | 'blocked_id'
  | 'invalid_search'
  | 'authentication_required'
  | 'invalid_token'
  | 'forbidden'
  | 'schema_not_found'
  | 'node_not_found'
  | 'delivery_not_found'
  | 'not_found'
  | 'node_exists'
  | 'id_exists'
  | 'key_id_immutable'
  | 'secure_flag_conflict'
  | 'type_option_conflict'
  | 'secure_type_in_use'
  | 'schema_in_use'
  | 'schema_changed'
  | 'node_id_limit_reached'
  | 'holder_limit_reached'
  | 'ids_shared'
  | 'separated_nodes'
  | 'separation_not_found'
  | 'cap_reached'
  | 'invalid_cursor'
  | 'cursor_expired'
  | 'invalid_import'
  | 'customer_not_empty'
  | 'import_in_progress'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'component_too_large'
  | 'answer_too_large'
  | 'rate_limited'
  | 'request_timeout'
  | 'expectation_failed'
  | 'headers_too_large'
  | 'server_busy'
  | 'store_unavailable'
  | 'internal_error';

export interface FieldProblem {
  path: string;
  message: string;
}

/** Members a problem of some codes carries beside the standard ones (cap_reached: which cap). */
export interface ProblemMembers {
  cap?: string;
  /** invalid_import: the 1-based number of the line refused. */
  line?: number;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldProblem[],
    readonly members?: ProblemMembers,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
