// How the Neo4j store runs the checks `_eligible` and `_impression` carry (CheckedPerson, src/domain/ports/showing.ts):
// against the customer's policy this process keeps (./kept-policies.ts), whose mark the person then carries
// (MarkedPerson.policyMark). The statement that reads the person's counts reads what the check used of the policy
// again (the secure and `links: false` types, the time zone), and the counts are used only while it is still what
// was kept; otherwise the call is refused (schema_changed) and checked again against a fresh read, which is kept
// instead. The last of POLICY_ATTEMPTS checks against a fresh read that is neither kept nor marked, which the
// statement does not compare: so a call is never answered schema_changed. A refusal is never answered from a kept
// read: the check runs again against a fresh one, whose answer is the call's.
import { isDomainError } from '../../domain/errors';
import type { CheckedPerson, ImpressionRequest, PersonRequest } from '../../domain/ports/showing';
import type { MarkedRead } from './kept-policies';

/** Checks an eligibility or impression makes at most. */
export const POLICY_ATTEMPTS = 3;

/** A person after its check; `policyMark`: the check ran against a kept read (MarkedRead.mark). */
export type MarkedPerson = PersonRequest & { policyMark?: string };

/** An impression after its check. */
export type MarkedImpression = Omit<ImpressionRequest, 'person'> & { person: MarkedPerson };

/** The reads a showing check is run against. */
export interface ShowingPolicies {
  /** What this process keeps of the customer's policy for showing, if anything. */
  kept(customerId: string): MarkedRead | undefined;
  /** A fresh read; with `keep`, kept (and marked) for later calls. */
  fresh(customerId: string, keep: boolean): Promise<MarkedRead>;
}

/** How an attempt reads the policy: what is kept (else a fresh read to keep), a fresh read to keep, or one not kept. */
type Use = 'kept' | 'renew' | 'fresh';

/** Runs `call` with the person and day `asked` checks to, again while the counts' statement finds the kept policy changed. */
export async function againstShowingPolicy<T>(
  policies: ShowingPolicies,
  asked: CheckedPerson,
  call: (person: MarkedPerson, day: string) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const { person, day } = await checked(policies, asked, attempt === 1 ? 'kept' : attempt < POLICY_ATTEMPTS ? 'renew' : 'fresh');
    try {
      return await call(person, day);
    } catch (e) {
      if (!(isDomainError(e) && e.code === 'schema_changed' && attempt < POLICY_ATTEMPTS)) throw e;
    }
  }
}

async function checked(policies: ShowingPolicies, asked: CheckedPerson, use: Use): Promise<{ person: MarkedPerson; day: string }> {
  const read = (use === 'kept' ? policies.kept(asked.customerId) : undefined) ?? (await policies.fresh(asked.customerId, use !== 'fresh'));
  try {
    const { person, day } = asked.check(read.policy);
    return { person: read.mark === undefined ? person : { ...person, policyMark: read.mark }, day };
  } catch (e) {
    if (read.mark === undefined || use !== 'kept' || !isDomainError(e)) throw e;
    return checked(policies, asked, 'renew');
  }
}
