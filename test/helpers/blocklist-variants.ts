// The spellings of three blocked values that a comparison of raw code points let through, for the domain and API
// tests of the blocklist: each must be blocked by VARIANT_RULES.

/** [what differs, type, value]: 13 spellings. */
export const VARIANTS: ReadonlyArray<readonly [string, string, string]> = [
  ['a leading space', 'email', ' test@test.com'],
  ['a trailing space', 'email', 'test@test.com '],
  ['a leading no-break space', 'email', '\u00a0test@test.com'],
  ['a zero-width space inside', 'email', 'test@\u200btest.com'],
  ['a soft hyphen inside', 'email', 'te\u00adst@test.com'],
  ['fullwidth letters', 'email', 'ｔｅｓｔ＠ｔｅｓｔ．ｃｏｍ'],
  ['fullwidth capitals, under ignore_case', 'email', 'ＴＥＳＴ＠ＴＥＳＴ．ＣＯＭ'],
  ['a trailing dot', 'email', 'test@test.com.'],
  ['Arabic-Indic zeros', 'device', '٠٠٠٠'],
  ['fullwidth zeros', 'device', '０００'],
  ['Devanagari zeros', 'device', '०००'],
  ['a dotted capital I, under ignore_case', 'member_id', 'ADMİN'],
  ['fullwidth capitals', 'member_id', 'ＡＤＭＩＮ'],
];

/** The rules the variants try to pass, in the API's spelling: a listed e-mail and a name, ignoring case, and a pattern of zeros. */
export const VARIANT_RULES: ReadonlyArray<{ type: string; values?: string[]; pattern?: string; ignore_case: boolean }> = [
  { type: 'email', values: ['test@test.com'], ignore_case: true },
  { type: 'device', pattern: '0+', ignore_case: false },
  { type: 'member_id', values: ['admin'], ignore_case: true },
];
