// Which strings are IANA time-zone names (a customer's `timezone`, docs/keeping-people-apart.md), and how to spell them.
//
// The runtime's Intl data decides what exists; this file decides the spelling. Node versions disagree on it for
// aliases: Node 20 answers ICU's canonical zone ('Asia/Kolkata' → 'Asia/Calcutta', 'Europe/Kyiv' → 'Europe/Kiev',
// 'Etc/UTC' → 'UTC'), while runtimes following ECMA-402's time-zone canonicalization change keep the name given,
// only case-corrected. So the answer is the runtime's spelling only when it is the name given in another case
// ('europe/berlin' → 'Europe/Berlin', 'utc' → 'UTC'), and otherwise the name exactly as given: a stored 'Asia/Kolkata'
// stays 'Asia/Kolkata' on every version. What no version can give us is the case of an alias written in the wrong
// case on Node 20 ('asia/kolkata' stays 'asia/kolkata' there); it is still a valid name, as Intl ignores case.

/**
 * Letters first, then letters, digits and `_ + / -`, at most 64 characters: every IANA name fits (Etc/GMT+1,
 * America/Port-au-Prince), while offsets (+01:00, -05), paths (../etc) and empty strings do not.
 */
const NAME_SHAPE = /^[A-Za-z][A-Za-z0-9_+/-]{0,63}$/;
/**
 * GMT+1 and UTC-05:00 are offsets written like names. Node 20 refuses them, but a runtime that accepts offset time
 * zones or ICU's custom zones might not; refused here so that every version agrees (Etc/GMT+1 is a name and passes).
 */
const OFFSET_LIKE = /^(?:GMT|UTC|UT)[+-]/i;

/** The IANA time-zone name `name` as the runtime spells it (e.g. 'europe/berlin' → 'Europe/Berlin'), or undefined when it is not one. */
export function ianaTimeZone(name: string): string | undefined {
  if (typeof name !== 'string' || !NAME_SHAPE.test(name) || OFFSET_LIKE.test(name)) return undefined;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat(undefined, { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined; // RangeError: not a time zone this runtime knows
  }
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}
