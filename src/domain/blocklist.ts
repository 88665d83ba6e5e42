// A customer's blocked values (docs/keeping-people-apart.md): checking rules before they are stored, and matching IDs against them.
// Patterns run on re2js (RE2: linear time in the value's length, whatever the pattern), never on JavaScript's
// backtracking RegExp, so a customer's pattern cannot stall the service. Values and rules are compared as
// blocklist-text.ts normalizes them.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { isSafePattern } from 'redos-detector';
import { RE2JS, RE2JSSyntaxException } from 're2js';
import safeRegex from 'safe-regex2';
import { foldCase, normalizeValue, rewritePattern, skeleton, withoutGroupNames } from './blocklist-text';
import { DomainError, type FieldProblem } from './errors';
import type { IdPair } from './id-pair';

export interface BlockRule {
  type: string;
  values?: string[];
  pattern?: string;
  ignoreCase: boolean;
  /** Values rules only: also block what looks like a listed value (equal skeletons). Absent on rules stored before it existed. */
  confusables?: boolean;
}

// The contract's bounds (openapi.yaml checks them first); repeated here so that no input reaches the compiler unbounded.
const MAX_RULES = 100;
const MAX_VALUES = 1000;
const MAX_PATTERN_LENGTH = 200;
/** How much of a pattern an error message may quote: enough to find the spot, never the whole input. */
const MAX_QUOTED = 40;
/**
 * redos-detector's bounds for one pattern. A pattern it cannot prove safe within them is refused; some, such as
 * (a|aa)*c, take it longer than any step bound would, so time is a bound too. A busy machine took 350 ms over a
 * plain pattern, hence a second; a refusal for time is not kept, so the next PUT of the pattern is checked again.
 */
const DETECTOR_STEPS = 3000;
const DETECTOR_TIMEOUT_MS = 1000;
/** What the detector may spend on all the patterns of one checkRules call, on the event loop. */
const CHECK_BUDGET_MS = 2000;

const UNSAFE_PATTERN =
  'could backtrack catastrophically where a backtracking engine runs it (a repetition inside a repetition, such as (a+)+, ' +
  'or more than 25 repetitions), or uses syntax that cannot be checked for that, such as (?i) (use ignore_case instead)';
const AMBIGUOUS_PATTERN =
  'could backtrack catastrophically where a backtracking engine runs it: some text can be matched by it in very many ' + 'ways, such as by (a|a)*b or (a|aa)*c';
const UNPROVEN_PATTERN =
  'could backtrack catastrophically where a backtracking engine runs it: it could not be shown otherwise within the ' +
  'limits of the check; write it more simply';
const NO_TIME_LEFT = `could not be checked: the patterns of one PUT have ${CHECK_BUDGET_MS / 1000} s to be checked in all; put fewer or simpler patterns`;

/**
 * Throws validation_failed naming each bad rule's path (`/body/rules/3`, `/body/rules/3/pattern`, …) with why.
 * A pattern must compile on RE2 and must also pass safe-regex2, although re2js would run any pattern in linear time:
 * a stored rule should stay safe when someone pastes it into a backtracking engine (Neo4j's `=~`, JavaScript RegExp).
 * Never throws anything but a DomainError, whatever it is given.
 */
export function checkRules(rules: BlockRule[]): void {
  if (!Array.isArray(rules)) {
    throw new DomainError('validation_failed', 'The blocklist must be a list of rules.', [{ path: '/body/rules', message: 'must be a list' }]);
  }
  if (rules.length > MAX_RULES) {
    throw new DomainError('validation_failed', 'The blocklist has too many rules.', [{ path: '/body/rules', message: `must hold at most ${MAX_RULES} rules` }]);
  }
  const problems: FieldProblem[] = [];
  const deadline = performance.now() + CHECK_BUDGET_MS;
  // A plain loop rather than forEach: forEach skips the holes of a sparse array, and a hole is a bad rule too.
  for (let i = 0; i < rules.length; i++) problems.push(...ruleProblems(rules[i], `/body/rules/${i}`, deadline));
  if (problems.length > 0) throw new DomainError('validation_failed', 'Some blocklist rules cannot be used; see errors.', problems);
}

function ruleProblems(rule: unknown, at: string, deadline: number): FieldProblem[] {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
    return [{ path: at, message: 'must be an object with type and one of values or pattern' }];
  }
  const fields: Partial<Record<keyof BlockRule, unknown>> = rule;
  const { type, values, pattern, ignoreCase, confusables } = fields;
  const problems: FieldProblem[] = [];
  if (typeof type !== 'string') problems.push({ path: `${at}/type`, message: 'must be a string' });
  if (typeof ignoreCase !== 'boolean') problems.push({ path: `${at}/ignore_case`, message: 'must be true or false' });
  if (confusables !== undefined && typeof confusables !== 'boolean') {
    problems.push({ path: `${at}/confusables`, message: 'must be true or false' });
  } else if (confusables === true && pattern !== undefined) {
    problems.push({ path: `${at}/confusables`, message: 'applies only to a rule with values, not to a pattern' });
  }
  if ((values === undefined) === (pattern === undefined)) {
    problems.push({ path: at, message: 'give exactly one of values or pattern' });
  } else if (values !== undefined) {
    problems.push(...valuesProblems(values, `${at}/values`));
  } else {
    const problem = patternProblem(pattern, ignoreCase === true, deadline);
    if (problem !== undefined) problems.push({ path: `${at}/pattern`, message: problem });
  }
  return problems;
}

function valuesProblems(values: unknown, at: string): FieldProblem[] {
  if (!Array.isArray(values) || values.length < 1 || values.length > MAX_VALUES) {
    return [{ path: at, message: `must list 1 to ${MAX_VALUES} strings` }];
  }
  const problems: FieldProblem[] = [];
  for (let j = 0; j < values.length; j++) {
    if (typeof values[j] !== 'string') problems.push({ path: `${at}/${j}`, message: 'must be a string' });
  }
  return problems;
}

/** Why `pattern` cannot be a rule, or undefined when it can. */
function patternProblem(pattern: unknown, ignoreCase: boolean, deadline: number): string | undefined {
  if (typeof pattern !== 'string') return 'must be a string';
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    RE2JS.compile(pattern);
  } catch (e) {
    return `is not a regular expression RE2 accepts (${compileFailure(e)}); RE2 has no lookaround and no backreferences`;
  }
  // safe-regex2 answers false, never throws, for what it cannot parse; the message covers both meanings. It is
  // cheap, and what passes it (no nested repetition, at most 25) bounds the work of the detector after it.
  if (!safeRegex(pattern)) return UNSAFE_PATTERN;
  const rewritten = rewritePattern(pattern, ignoreCase);
  if (rewritten.problems.length > 0) return rewritten.problems.join('; ');
  try {
    RE2JS.compile(rewritten.source);
  } catch {
    return 'cannot be matched against normalized values; write its literal characters as they are normalized';
  }
  return ambiguityProblem(pattern, ignoreCase, deadline);
}

/** The detector's verdicts on patterns already checked, by ignore_case and pattern (a PUT repeats most of its rules). */
const verdicts = new LRUCache<string, { verdict: string | undefined }>({ max: 1000 });

/**
 * redos-detector's verdict: does some text match `pattern`, as a whole value, in very many ways (exponential or
 * polynomial backtracking, which safe-regex2 does not look for)? It reads JavaScript syntax: group names are taken
 * out, and what it cannot parse is refused as unchecked.
 */
function ambiguityProblem(pattern: string, ignoreCase: boolean, deadline: number): string | undefined {
  const key = `${ignoreCase ? 'i' : '-'}${pattern}`;
  const known = verdicts.get(key);
  if (known) return known.verdict;
  const timeout = Math.min(DETECTOR_TIMEOUT_MS, deadline - performance.now());
  if (timeout <= 0) return NO_TIME_LEFT;
  let verdict: string | undefined;
  try {
    const result = isSafePattern(`^(?:${withoutGroupNames(pattern)})$`, { caseInsensitive: ignoreCase, maxSteps: DETECTOR_STEPS, timeout });
    if (result.error === 'timedOut' && timeout < DETECTOR_TIMEOUT_MS) return NO_TIME_LEFT;
    verdict = result.safe ? undefined : result.error === 'hitMaxScore' ? AMBIGUOUS_PATTERN : UNPROVEN_PATTERN;
    if (result.error === 'timedOut') return verdict;
  } catch {
    verdict = UNSAFE_PATTERN;
  }
  verdicts.set(key, { verdict });
  return verdict;
}

/** RE2's own description of a compile failure, quoting at most a short piece of the pattern. */
function compileFailure(e: unknown): string {
  if (!(e instanceof RE2JSSyntaxException)) return 'it cannot be compiled';
  const fragment = e.getPattern();
  if (fragment === null || fragment === '') return e.getDescription();
  const quoted = fragment.length > MAX_QUOTED ? `${fragment.slice(0, MAX_QUOTED)}…` : fragment;
  return `${e.getDescription()}: \`${quoted}\``;
}

/** The compiled rules of one customer. */
export interface Blocklist {
  readonly empty: boolean;
  /**
   * The index of the first rule that blocks `id`, or -1. A rule blocks an ID of its type whose value, normalized as
   * the rule says, is one of its `values` normalized alike (or has the skeleton of one, with confusables), or which
   * its `pattern` matches as a whole, normalized or as written.
   */
  ruleBlocking(id: IdPair): number;
}

/** One rule, compiled: it blocks a value when the set holds its form, or a pattern matches all of it. */
interface CompiledRule {
  index: number;
  /** Which form of a value the rule compares: normalized (case-folded when ignoreCase), and its skeleton when confusables. */
  form: number;
  /** The rule's values in that form. */
  values?: ReadonlySet<string>;
  /** The pattern with its literal characters normalized, for the normalized value. */
  pattern?: RE2JS;
  /** The pattern as written, for the value as written. */
  written?: RE2JS;
}

const FOLDED = 1;
const SKELETON = 2;
const formOf = (ignoreCase: boolean, confusables: boolean): number => (ignoreCase ? FOLDED : 0) | (confusables ? SKELETON : 0);

/**
 * How a rule of `form` compares a value: normalized; with confusables its skeleton instead. Under ignore_case too,
 * two skeletons, of the folded value and folded after: confusables.txt tells lowercase letters and capitals apart
 * (a Cyrillic `Т` looks like `T`, its `т` like a small capital), so either one alike is a lookalike in some case.
 */
function valueForms(value: string, form: number): string[] {
  const folded = (form & FOLDED) !== 0;
  const normal = normalizeValue(value, folded);
  if ((form & SKELETON) === 0) return [normal];
  return folded ? [skeleton(normal), foldCase(skeleton(normalizeValue(value, false)))] : [skeleton(normal)];
}

class CompiledBlocklist implements Blocklist {
  readonly empty: boolean;

  /** The rules of each type, in rule order: an ID of a type without rules costs one Map lookup. */
  constructor(private readonly byType: ReadonlyMap<string, readonly CompiledRule[]>) {
    this.empty = byType.size === 0;
  }

  ruleBlocking(id: IdPair): number {
    const rules = this.byType.get(id.type);
    if (rules === undefined) return -1;
    const forms: Array<string[] | undefined> = [];
    for (const rule of rules) {
      const value = (forms[rule.form] ??= valueForms(id.id, rule.form));
      if (rule.values !== undefined) {
        const listed = rule.values;
        if (value.some((v) => listed.has(v))) return rule.index;
      } else {
        const normal = value[0] ?? '';
        if (rule.pattern?.testExact(normal) === true) return rule.index;
        // Mostly the value and the pattern are both as written already, and one run has told.
        const again = normal !== id.id || rule.pattern !== rule.written;
        if (again && rule.written?.testExact(id.id) === true) return rule.index;
      }
    }
    return -1;
  }
}

const EMPTY: Blocklist = new CompiledBlocklist(new Map());

function compileRule(rule: BlockRule, index: number): CompiledRule {
  if (rule.values !== undefined) {
    const form = formOf(rule.ignoreCase, rule.confusables === true);
    return { index, form, values: new Set(rule.values.flatMap((v) => valueForms(v, form))) };
  }
  // testExact matches the whole value, so `a|b` blocks "a" and "b" but not "ab", with no anchors to add.
  const flags = rule.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  const source = rule.pattern ?? '';
  const written = RE2JS.compile(source, flags);
  // A rule stored before the rewrite was checked may be one that cannot be rewritten: it is then matched as written only.
  let pattern: RE2JS | undefined;
  const rewritten = rewritePattern(source, rule.ignoreCase);
  try {
    if (rewritten.source === source) pattern = written;
    else if (rewritten.problems.length === 0) pattern = RE2JS.compile(rewritten.source, flags);
  } catch {
    pattern = undefined;
  }
  return { index, form: formOf(rule.ignoreCase, false), written, ...(pattern === undefined ? {} : { pattern }) };
}

function compile(rules: readonly BlockRule[]): Blocklist {
  const byType = new Map<string, CompiledRule[]>();
  rules.forEach((rule, index) => {
    const ofType = byType.get(rule.type);
    if (ofType === undefined) byType.set(rule.type, [compileRule(rule, index)]);
    else ofType.push(compileRule(rule, index));
  });
  return new CompiledBlocklist(byType);
}

/** Compiled blocklists by a digest of their rules' content, the last 256 used. */
const byContent = new LRUCache<string, Blocklist>({ max: 256 });
/**
 * The same rules array gives the same blocklist without hashing it again: a store that keeps a customer's policy in
 * memory hands back the same array on every write, and digesting 100 rules of 1,000 values costs milliseconds. An
 * entry lives as long as the caller's array; rules arrays are never changed in place once compiled.
 */
const byArray = new WeakMap<readonly BlockRule[], Blocklist>();

/** A digest, not the JSON text itself, as the key: the text of a large blocklist is megabytes. */
const contentKey = (rules: readonly BlockRule[]): string =>
  createHash('sha256')
    .update(JSON.stringify(rules.map((r) => [r.type, r.values ?? null, r.pattern ?? null, r.ignoreCase, r.confusables === true])))
    .digest('base64');

/**
 * Compiles rules that passed checkRules (a pattern RE2 cannot compile throws here). Compiling is not free, so the
 * last 256 distinct rule sets stay compiled; [] gives a shared empty blocklist.
 */
export function compileBlocklist(rules: readonly BlockRule[]): Blocklist {
  if (rules.length === 0) return EMPTY;
  const same = byArray.get(rules);
  if (same !== undefined) return same;
  const key = contentKey(rules);
  let blocklist = byContent.get(key);
  if (blocklist === undefined) {
    blocklist = compile(rules);
    byContent.set(key, blocklist);
  }
  byArray.set(rules, blocklist);
  return blocklist;
}

/** How many compiled blocklists the cache holds (for tests). */
export const blocklistCacheSize = (): number => byContent.size;
