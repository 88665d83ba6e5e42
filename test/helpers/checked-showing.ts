// The showing calls a test or tool makes of a store directly, with the person and day already known: ShowingStore
// takes them only as checks (CheckedPerson), as the domain sends them, and these checks answer them whatever the policy.
import type { CheckedImpression, CheckedPerson, ImpressionRequest, PersonRequest } from '../../src/domain/ports/showing';

/** `person` on `day`, as a check that answers them. */
export const checkedPerson = (person: PersonRequest, day: string): CheckedPerson => ({ customerId: person.customerId, check: () => ({ person, day }) });

/** An impression whose person and day are given, as a checked one. */
export const checkedImpression = ({ person, day, ...rest }: ImpressionRequest): CheckedImpression => ({ ...rest, person: checkedPerson(person, day) });
