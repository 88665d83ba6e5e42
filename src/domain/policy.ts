// The customer's own rules every search and node write passes (docs/keeping-people-apart.md): a required token, and
// blocked values. Both are read with the customer's policy, once per request (ProtectionStore.customerPolicy; a node write's
// check is run on it with its schema, CheckedNode in ports/node-writes.ts).
import { compileBlocklist } from './blocklist';
import { DomainError, type FieldProblem } from './errors';
import type { Actor, CustomerPolicy, IdPair } from './model';

/** 401 when the customer requires a token on every search and node operation (require_token) and the caller sent none. */
export function requireTokenIfAsked(actor: Actor, policy: CustomerPolicy): void {
  if (policy.settings.requireToken && !actor.authenticated) {
    throw new DomainError('authentication_required', 'This customer requires a bearer token on every search and node operation.');
  }
}

/**
 * 422 blocked_id naming the path of every value a blocklist rule matches (`${path}/id`), and which rule; never the
 * value itself, which may be secure.
 */
export function refuseBlocked(policy: CustomerPolicy, values: ReadonlyArray<{ id: IdPair; path: string }>): void {
  if (policy.blockRules.length === 0) return;
  const blocklist = compileBlocklist(policy.blockRules);
  const problems: FieldProblem[] = [];
  for (const { id, path } of values) {
    const rule = blocklist.ruleBlocking(id);
    if (rule >= 0) problems.push({ path: `${path}/id`, message: `is blocked by rule ${rule} of the customer's blocklist` });
  }
  if (problems.length > 0) throw new DomainError('blocked_id', 'The write holds a blocked value; nothing was written.', problems);
}
