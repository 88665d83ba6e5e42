// Blocked values (docs/keeping-people-apart.md): which rules may be stored, which IDs they block, and that no pattern can stall us.
import fc from 'fast-check';
import { type BlockRule, blocklistCacheSize, checkRules, compileBlocklist } from '../../src/domain/blocklist';
import { foldCase, normalizeValue, rewritePattern } from '../../src/domain/blocklist-text';
import { VARIANT_RULES, VARIANTS } from '../helpers/blocklist-variants';
import { DomainError, type FieldProblem } from '../../src/domain/errors';

const values = (type: string, list: string[], ignoreCase = false, confusables = false): BlockRule => ({
  type,
  values: list,
  ignoreCase,
  ...(confusables ? { confusables } : {}),
});
const pattern = (type: string, source: string, ignoreCase = false): BlockRule => ({ type, pattern: source, ignoreCase });
const id = (type: string, value: string) => ({ type, id: value });

/** The problems checkRules reports for `rules`, or [] when it accepts them. */
function problemsOf(rules: unknown): FieldProblem[] {
  try {
    checkRules(rules as BlockRule[]);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).code).toBe('validation_failed');
    return (e as DomainError).errors ?? [];
  }
}

describe('matching IDs against a blocklist', () => {
  test('when a rule lists values, then exactly those values of its type are blocked', () => {
    const blocklist = compileBlocklist([values('email', ['test@test.com', 'none@none'])]);
    expect(blocklist.empty).toBe(false);
    expect(blocklist.ruleBlocking(id('email', 'test@test.com'))).toBe(0);
    expect(blocklist.ruleBlocking(id('email', 'none@none'))).toBe(0);
    expect(blocklist.ruleBlocking(id('email', 'TEST@test.com'))).toBe(-1);
    expect(blocklist.ruleBlocking(id('email', 'test@test.co'))).toBe(-1);
    expect(blocklist.ruleBlocking(id('email', 'xtest@test.com'))).toBe(-1);
  });

  test('when a values rule ignores case, then any spelling of a listed value is blocked', () => {
    const blocklist = compileBlocklist([values('email', ['Test@Test.com'], true)]);
    expect(blocklist.ruleBlocking(id('email', 'test@test.com'))).toBe(0);
    expect(blocklist.ruleBlocking(id('email', 'TEST@TEST.COM'))).toBe(0);
    expect(blocklist.ruleBlocking(id('email', 'other@test.com'))).toBe(-1);
  });

  test('when a rule has a pattern, then it blocks only values it matches whole, anchored or not', () => {
    for (const source of ['^0+$', '0+']) {
      const blocklist = compileBlocklist([pattern('device_id', source)]);
      expect(blocklist.ruleBlocking(id('device_id', '000'))).toBe(0);
      expect(blocklist.ruleBlocking(id('device_id', '0001'))).toBe(-1);
      expect(blocklist.ruleBlocking(id('device_id', '1000'))).toBe(-1);
    }
  });

  test('when a pattern has alternatives, then each must match the whole value', () => {
    const blocklist = compileBlocklist([pattern('device_id', 'a|b')]);
    expect(blocklist.ruleBlocking(id('device_id', 'a'))).toBe(0);
    expect(blocklist.ruleBlocking(id('device_id', 'b'))).toBe(0);
    expect(blocklist.ruleBlocking(id('device_id', 'ab'))).toBe(-1);
  });

  test('when a pattern ignores case, then it matches any case; otherwise only its own', () => {
    const folded = compileBlocklist([pattern('email', '[a-z]+@example\\.com', true)]);
    const exact = compileBlocklist([pattern('email', '[a-z]+@example\\.com')]);
    expect(folded.ruleBlocking(id('email', 'Ann@EXAMPLE.com'))).toBe(0);
    expect(exact.ruleBlocking(id('email', 'Ann@EXAMPLE.com'))).toBe(-1);
    expect(exact.ruleBlocking(id('email', 'ann@example.com'))).toBe(0);
  });

  test('when several rules block a value, then the first of them is named', () => {
    const blocklist = compileBlocklist([
      values('device_id', ['x@test.com']),
      values('email', ['nobody@test.com']),
      pattern('email', '.*@test\\.com'),
      values('email', ['x@test.com']),
      pattern('email', 'x@.*'),
    ]);
    expect(blocklist.ruleBlocking(id('email', 'nobody@test.com'))).toBe(1);
    expect(blocklist.ruleBlocking(id('email', 'x@test.com'))).toBe(2);
    expect(blocklist.ruleBlocking(id('email', 'x@example.com'))).toBe(4);
    expect(blocklist.ruleBlocking(id('device_id', 'x@test.com'))).toBe(0);
  });

  test('when an ID is of a type no rule names, then it is not blocked', () => {
    const blocklist = compileBlocklist([values('email', ['test@test.com']), pattern('device_id', '.*')]);
    expect(blocklist.ruleBlocking(id('member_id', 'test@test.com'))).toBe(-1);
    expect(blocklist.ruleBlocking(id('Email', 'test@test.com'))).toBe(-1);
  });

  test('when there are no rules, then the shared empty blocklist blocks nothing', () => {
    const empty = compileBlocklist([]);
    expect(empty.empty).toBe(true);
    expect(compileBlocklist([])).toBe(empty);
    expect(empty.ruleBlocking(id('email', 'test@test.com'))).toBe(-1);
  });
});

describe('checking rules before they are stored', () => {
  test('when every rule is sound, then nothing is refused', () => {
    expect(
      problemsOf([
        values('email', ['test@test.com', 'none@none'], true),
        pattern('device_id', '^0+$'),
        pattern('device_id', '(?<kind>ios|android)-[0-9a-f]{8}'),
      ]),
    ).toEqual([]);
  });

  test('when a rule gives both or neither of values and pattern, then that rule is named', () => {
    const both = { type: 'email', values: ['a'], pattern: 'a', ignoreCase: false };
    const neither = { type: 'email', ignoreCase: false };
    expect(problemsOf([values('email', ['a']), both, neither])).toEqual([
      { path: '/body/rules/1', message: 'give exactly one of values or pattern' },
      { path: '/body/rules/2', message: 'give exactly one of values or pattern' },
    ]);
  });

  test.each([
    ['a repetition of a repetition', '(a+)+$'],
    ['a star of a star', '(x*)*'],
  ])('when a pattern has %s, then it is refused although RE2 would run it in linear time', (_what, source) => {
    const problems = problemsOf([values('email', ['a']), pattern('device_id', source)]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('/body/rules/1/pattern');
    expect(problems[0]?.message).toMatch(/backtrack catastrophically/);
  });

  test('when a pattern uses syntax only RE2 reads, such as (?i), then it is refused pointing to ignore_case', () => {
    const problems = problemsOf([pattern('device_id', '(?i)abc')]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('/body/rules/0/pattern');
    expect(problems[0]?.message).toMatch(/ignore_case/);
  });

  test.each([
    ['a lookahead', '(?=a)'],
    ['a backreference', '(a)\\1'],
    ['an unbalanced parenthesis', '('],
  ])('when a pattern has %s, then it is refused saying RE2 does not accept it', (_what, source) => {
    const problems = problemsOf([pattern('device_id', '0+'), pattern('device_id', source)]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('/body/rules/1/pattern');
    expect(problems[0]?.message).toMatch(/^is not a regular expression RE2 accepts \(.+\)/);
  });

  test('when several rules are bad, then each is named in one refusal', () => {
    const problems = problemsOf([pattern('a', '(a+)+$'), pattern('b', 'ok'), pattern('c', '(?=a)'), { type: 'd', ignoreCase: true }]);
    expect(problems.map((p) => p.path)).toEqual(['/body/rules/0/pattern', '/body/rules/2/pattern', '/body/rules/3']);
  });

  test('when a bad pattern is long, then the message quotes only a short piece of it', () => {
    const source = `(${'a'.repeat(199)}`;
    const [problem] = problemsOf([pattern('device_id', source)]);
    expect(problem?.path).toBe('/body/rules/0/pattern');
    expect(problem?.message).not.toContain(source);
    expect(problem?.message.length).toBeLessThan(200);
  });

  test('when rules go past the contract bounds, then they are refused rather than compiled', () => {
    expect(problemsOf([pattern('device_id', 'a'.repeat(201))])).toEqual([{ path: '/body/rules/0/pattern', message: 'must be at most 200 characters' }]);
    expect(problemsOf([values('email', [])])[0]?.path).toBe('/body/rules/0/values');
    expect(
      problemsOf([
        values(
          'email',
          Array.from({ length: 1001 }, (_, i) => `v${i}`),
        ),
      ])[0]?.path,
    ).toBe('/body/rules/0/values');
    expect(problemsOf(Array.from({ length: 101 }, () => values('email', ['a'])))).toEqual([{ path: '/body/rules', message: 'must hold at most 100 rules' }]);
  });

  test('when given anything at all, then checkRules only ever throws a validation_failed DomainError', () => {
    const regexPiece = fc.constantFrom(
      ...['(', ')', '*', '+', '?', '|', '[', ']', '{', '}', '\\', ',', '^', '$', '.', '<', '=', '!', 'P', ':'],
      ...['a', '1', 'é', '\ud800'],
    );
    const regexText = fc.array(regexPiece, { maxLength: 40 }).map((pieces) => pieces.join(''));
    const rule = fc.record(
      {
        type: fc.oneof(fc.string(), fc.anything()),
        values: fc.oneof(fc.array(fc.string()), fc.anything()),
        pattern: fc.oneof(regexText, fc.anything()),
        ignoreCase: fc.oneof(fc.boolean(), fc.anything()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.array(rule, { maxLength: 5 }), fc.anything()), (rules) => {
        problemsOf(rules);
      }),
      { seed: 20261123, numRuns: 1000 },
    );
  });
});

describe('patterns cannot stall the service', () => {
  test('when a pattern stored before the ambiguity check meets a hostile value, then matching still takes linear time', () => {
    const rules = [pattern('device_id', '(a|a)*$')];
    expect(problemsOf(rules)[0]?.message).toMatch(/backtrack catastrophically/);
    // The store holds what an earlier release let through; it is compiled and matched all the same.
    const blocklist = compileBlocklist(rules);
    const hostile = `${'a'.repeat(50000)}b`;
    const started = performance.now();
    expect(blocklist.ruleBlocking(id('device_id', hostile))).toBe(-1);
    expect(blocklist.ruleBlocking(id('device_id', 'a'.repeat(50000)))).toBe(0);
    // A backtracking engine needs about 2^50000 steps here; RE2 needs a few milliseconds.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('the compiled blocklist cache', () => {
  const rulesFor = (name: string): BlockRule[] => [values('email', [`${name}@test.com`]), pattern('device_id', `${name}-[0-9]+`, true)];

  test('when equal rules are compiled twice, then the same blocklist comes back', () => {
    expect(compileBlocklist(rulesFor('same'))).toBe(compileBlocklist(structuredClone(rulesFor('same'))));
    expect(compileBlocklist(rulesFor('same'))).not.toBe(compileBlocklist(rulesFor('other')));
  });

  test('when 257 distinct rule sets are compiled, then at most 256 stay cached', () => {
    for (let i = 0; i < 257; i++) compileBlocklist(rulesFor(`bounded-${i}`));
    expect(blocklistCacheSize()).toBeLessThanOrEqual(256);
    expect(blocklistCacheSize()).toBeGreaterThan(0);
  });

  test('when the cache is full, then the least recently used blocklist goes first', () => {
    const kept = compileBlocklist(rulesFor('kept'));
    const forgotten = compileBlocklist(rulesFor('forgotten'));
    for (let i = 0; i < 254; i++) compileBlocklist(rulesFor(`filler-${i}`));
    expect(compileBlocklist(rulesFor('kept'))).toBe(kept); // now the most recently used
    for (let i = 0; i < 254; i++) compileBlocklist(rulesFor(`more-${i}`));
    expect(compileBlocklist(rulesFor('kept'))).toBe(kept);
    expect(compileBlocklist(rulesFor('forgotten'))).not.toBe(forgotten);
  });
});

describe('values and rules are normalized alike before they are compared', () => {
  /** The API's rules as the domain reads them. */
  const rules: BlockRule[] = VARIANT_RULES.map((r) => ({
    type: r.type,
    ...(r.values ? { values: r.values } : { pattern: r.pattern ?? '' }),
    ignoreCase: r.ignore_case,
  }));

  test.each(VARIANTS)('when a value differs from a blocked one by %s, then it is blocked all the same', (_what, type, value) => {
    expect(compileBlocklist(rules).ruleBlocking(id(type, value))).toBe(rules.findIndex((r) => r.type === type));
  });

  test('when values only look alike after a step that is not taken, then they are not blocked', () => {
    const blocklist = compileBlocklist(rules);
    for (const [type, value] of [
      ['email', 'test@test.com..'],
      ['email', 'test @test.com'],
      ['email', 'test@test.comx'],
      ['device', '٠٠١'],
      ['device', 'O00'],
      ['member_id', 'admins'],
      ['member_id', 'аdmin'], // a Cyrillic а: a confusable, caught only with confusables
    ] as const) {
      expect(blocklist.ruleBlocking(id(type, value))).toBe(-1);
    }
  });

  test('when a rule does not ignore case, then case still counts after normalization', () => {
    const blocklist = compileBlocklist([values('member_id', ['admin']), pattern('device_id', 'ab+')]);
    expect(blocklist.ruleBlocking(id('member_id', ' ａｄｍｉｎ.'))).toBe(0);
    expect(blocklist.ruleBlocking(id('member_id', 'ＡＤＭＩＮ'))).toBe(-1);
    expect(blocklist.ruleBlocking(id('device_id', 'ａｂｂ'))).toBe(1);
    expect(blocklist.ruleBlocking(id('device_id', 'ＡＢＢ'))).toBe(-1);
  });

  test('when a listed value is itself written oddly, then it is normalized as the values are', () => {
    const blocklist = compileBlocklist([values('email', [' ＴＥＳＴ@test.com. '], true)]);
    expect(blocklist.ruleBlocking(id('email', 'test@test.com'))).toBe(0);
  });

  test('when ignore_case, then case is fully folded: ß is ss, ﬀ is ff, final ς is σ, İ is i', () => {
    expect(foldCase('Straße')).toBe(foldCase('STRASSE'));
    expect(foldCase('ẞ')).toBe('ss');
    expect(foldCase('ΟΔΟΣ')).toBe(foldCase('οδοσ'.slice(0, 3) + 'ς'));
    expect(foldCase('ADMİN')).toBe('admin');
    const blocklist = compileBlocklist([values('member_id', ['straße', 'oﬀ'], true)]);
    for (const value of ['STRASSE', 'strasse', 'STRAẞE', 'OFF']) expect(blocklist.ruleBlocking(id('member_id', value))).toBe(0);
    expect(compileBlocklist([values('member_id', ['straße'])]).ruleBlocking(id('member_id', 'strasse'))).toBe(-1);
  });

  test('when digits of any script are compared, then each counts as its ASCII digit', () => {
    expect(normalizeValue('٠١٢٣٤٥٦٧٨٩', false)).toBe('0123456789');
    expect(normalizeValue('۹৯๙𝟡𝟿', false)).toBe('99999');
    const blocklist = compileBlocklist([pattern('device_id', '\\d{3}-[0-9]+'), values('member_id', ['42'])]);
    expect(blocklist.ruleBlocking(id('device_id', '١٢٣-٤'))).toBe(0);
    expect(blocklist.ruleBlocking(id('member_id', '٤٢'))).toBe(1);
  });

  test('when a value is a lone dot, or has two trailing dots, then only one dot goes, and never the whole value', () => {
    expect(normalizeValue('.', false)).toBe('.');
    expect(normalizeValue('a..', false)).toBe('a.');
    expect(normalizeValue(' example.com. ', false)).toBe('example.com');
  });

  test('when a value carries control characters (U+0000–U+001F, U+007F–U+009F), then they are dropped as ignorables are, wherever they stand', () => {
    const blocklist = compileBlocklist([values('email', ['test@test.com'], true), values('member_id', ['admin']), pattern('device_id', '0+')]);
    for (const value of [
      'Test@TEST.com\0',
      '\0test@test.com',
      'test@\u0001test.com',
      'test@test.com\u007f',
      'TEST@test.com\u0085',
      'test@test.com\t\r\n',
      'test@test.com.\0',
    ]) {
      expect([JSON.stringify(value), blocklist.ruleBlocking(id('email', value))]).toEqual([JSON.stringify(value), 0]);
    }
    expect(blocklist.ruleBlocking(id('member_id', 'ad\u001fmin'))).toBe(1);
    expect(blocklist.ruleBlocking(id('member_id', 'ad\u200bmin\u0000'))).toBe(1);
    expect(blocklist.ruleBlocking(id('device_id', '000\0'))).toBe(2);
    // A listed value goes through the same steps.
    expect(compileBlocklist([values('email', ['test@test.com\u0000'])]).ruleBlocking(id('email', 'test@test.com'))).toBe(0);
    expect(normalizeValue('a\u0000b\u007f\u0090', false)).toBe('ab');
    expect(normalizeValue('\u0000', false)).toBe('');
    // Only the control characters go: what is left must still be a listed value.
    expect(blocklist.ruleBlocking(id('email', 'test@test.co\0m.x'))).toBe(-1);
  });

  test('when a pattern asks for a control character, then it is refused as an invisible one; stored before, it is matched as written', () => {
    for (const source of ['a\u0000b', 'a\\x{0}b', 'a\\x7fb'])
      expect(problemsOf([pattern('device_id', source)])[0]?.message).toMatch(/an invisible character that values lose/);
    const blocklist = compileBlocklist([pattern('device_id', 'a\\x00b')]);
    expect(blocklist.ruleBlocking(id('device_id', 'a\u0000b'))).toBe(0);
    expect(blocklist.ruleBlocking(id('device_id', 'ab'))).toBe(-1);
  });

  test('when a pattern asks for an invisible character, then it is refused; stored before, it is matched against the value as written only', () => {
    const rules = [pattern('device_id', '.*\\x{200B}.*')];
    expect(problemsOf(rules)[0]?.message).toMatch(/an invisible character that values lose/);
    const blocklist = compileBlocklist(rules);
    expect(blocklist.ruleBlocking(id('device_id', 'a\u200bb'))).toBe(0);
    expect(blocklist.ruleBlocking(id('device_id', 'ab'))).toBe(-1);
  });

  test('when a pattern is matched, then the value as written is tried too, so nothing it blocked before normalization goes free', () => {
    const blocklist = compileBlocklist([pattern('device_id', 'x\\.')]);
    expect(blocklist.ruleBlocking(id('device_id', 'x.'))).toBe(0);
    expect(blocklist.ruleBlocking(id('device_id', 'x'))).toBe(-1);
  });
});

describe('the literal characters of a pattern are normalized as values are', () => {
  test('when a pattern has fullwidth or other-script literals, then they match the normalized value', () => {
    const blocklist = compileBlocklist([pattern('device_id', '０+|ｕｎｋｎｏｗｎ'), pattern('member_id', 'straße-\\x{661}+', true)]);
    expect(blocklist.ruleBlocking(id('device_id', '000'))).toBe(0);
    expect(blocklist.ruleBlocking(id('device_id', 'unknown'))).toBe(0);
    expect(blocklist.ruleBlocking(id('member_id', 'STRASSE-11'))).toBe(1);
    expect(blocklist.ruleBlocking(id('member_id', 'strasse-1'))).toBe(1);
  });

  test('when a literal turns into several characters or none, then it is grouped, so a quantifier still takes all of it', () => {
    expect(rewritePattern('aß+', true).source).toBe('a(?:ss)+');
    expect(rewritePattern('a\u200b*b', false).source).toBe('a(?:)*b');
    expect(rewritePattern('a\u200b*b', false).problems).toHaveLength(1);
    expect(rewritePattern('x{３}', false).source).toBe('x{(?:3)}');
    expect(rewritePattern('(?P<n>Ａ)[a-z]\\pL\\Q．\\E', false).source).toBe('(?P<n>(?:A))[a-z]\\pL(?:\\.)');
    expect(rewritePattern('[Ａ０]', false)).toEqual({ source: '[A0]', problems: [] });
    expect(rewritePattern('[É-Ö]', true)).toEqual({ source: '[É-Ö]', problems: [] });
  });

  test('when a class holds what cannot be normalized inside a class, then the pattern is refused naming it', () => {
    for (const [source, ignoreCase, said] of [
      ['[ß]', true, /`ß` in a character class, which matching reads as `ss`/],
      ['[a\u200b]', false, /which matching reads as nothing/],
      ['[Ａ-Ｚ]+', false, /has a range, Ａ-Ｚ, with an end/],
      ['[٠-٩]', false, /has a range/],
    ] as const) {
      const problems = problemsOf([pattern('device_id', source, ignoreCase)]);
      expect(problems).toHaveLength(1);
      expect(problems[0]?.path).toBe('/body/rules/0/pattern');
      expect(problems[0]?.message).toMatch(said);
    }
    // Stored before the check, such a pattern still compiles, its class as written.
    expect(compileBlocklist([pattern('device_id', '[Ａ-Ｚ]+')]).ruleBlocking(id('device_id', 'ＡＢ'))).toBe(0);
  });
});

describe('mixed-script confusables, under the confusables flag', () => {
  test('when a rule has confusables, then a value that looks like a listed one is blocked, also with a Cyrillic letter in a Latin word', () => {
    const blocklist = compileBlocklist([values('member_id', ['admin', 'test@test.com'], true, true)]);
    for (const value of ['аdmin', 'admіn', 'ADMİN', 'аdmіn', 'adrnin', 'tеst@tеst.com', 'ТЕЅТ@test.com']) {
      expect(blocklist.ruleBlocking(id('member_id', value))).toBe(0);
    }
    expect(blocklist.ruleBlocking(id('member_id', 'adman'))).toBe(-1);
  });

  test('when a rule has no confusables flag, then a Cyrillic letter is not a Latin one', () => {
    expect(compileBlocklist([values('member_id', ['admin'], true)]).ruleBlocking(id('member_id', 'аdmin'))).toBe(-1);
  });

  test('when confusables is given on a pattern, or is no boolean, then the rule is refused naming it', () => {
    expect(problemsOf([{ ...pattern('device_id', '0+'), confusables: true }])).toEqual([
      { path: '/body/rules/0/confusables', message: 'applies only to a rule with values, not to a pattern' },
    ]);
    expect(problemsOf([{ ...values('device_id', ['0']), confusables: 'yes' }])).toEqual([
      { path: '/body/rules/0/confusables', message: 'must be true or false' },
    ]);
    expect(
      problemsOf([
        { ...pattern('device_id', '0+'), confusables: false },
        { ...values('d', ['0']), confusables: true },
      ]),
    ).toEqual([]);
  });
});

describe('patterns that backtrack on overlapping alternatives', () => {
  test.each([['(a|a)*b'], ['(a|aa)*c'], ['(a|a)*$'], ['(ab|a)(bc|b)(cd|c)(de|d)(ef|e)*f'], ['\\w+\\s?\\w+']])(
    'when a pattern such as %s is put, then it is refused although safe-regex2 passes it',
    (source) => {
      const problems = problemsOf([pattern('device_id', source)]);
      expect(problems).toHaveLength(1);
      expect(problems[0]?.path).toBe('/body/rules/0/pattern');
      expect(problems[0]?.message).toMatch(/backtrack|could not be shown safe/);
    },
  );

  test('when patterns are unambiguous, then they pass, named groups included', () => {
    expect(
      problemsOf([
        pattern('device_id', '(?<kind>ios|android)-[0-9a-f]{8}'),
        pattern('email', '.*@(mailinator|guerrillamail)\\.com', true),
        pattern('email', '[^@]+@test\\.com'),
        pattern('device_id', '0+|unknown|none'),
      ]),
    ).toEqual([]);
  });
});
