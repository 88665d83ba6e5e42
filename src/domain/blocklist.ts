// A customer's blocked values (extensions §2.2): checking rules before they are stored, and matching IDs against them.
// Patterns run on re2js (RE2: linear time in the value's length, whatever the pattern), never on JavaScript's
// backtracking RegExp, so a customer's pattern cannot stall the service.
import { createHash } from 'node:crypto';
import { RE2JS, RE2JSSyntaxException } from 're2js';
import safeRegex from 'safe-regex2';
import { DomainError, type FieldProblem } from './errors';
import type { IdPair } from './model';

export interface BlockRule {
  type: string;
  values?: string[];
  pattern?: string;
  ignoreCase: boolean;
}

// The contract's bounds (openapi.yaml checks them first); repeated here so that no input reaches the compiler unbounded.
const MAX_RULES = 100;
const MAX_VALUES = 1000;
const MAX_PATTERN_LENGTH = 200;
/** How much of a pattern an error message may quote: enough to find the spot, never the whole input. */
const MAX_QUOTED = 40;

const UNSAFE_PATTERN =
  'could backtrack catastrophically where a backtracking engine runs it (a repetition inside a repetition, such as (a+)+, ' +
  'or more than 25 repetitions), or uses syntax that cannot be checked for that, such as (?i) (use ignore_case instead)';

/**
 * Throws validation_failed naming each bad rule's path (`/body/rules/3`, `/body/rules/3/pattern`, …) with why.
 * A pattern must compile on RE2 and must also pass safe-regex2, although re2js would run any pattern in linear time:
 * a stored rule should stay safe when someone pastes it into a backtracking engine (Neo4j's `=~`, JavaScript RegExp).
 * Never throws anything but a DomainError, whatever it is given.
 */
export function checkRules(rules: BlockRule[]): void {
  if (!Array.isArray(rules)) {
    throw new DomainError('validation_failed', 'The blocklist must be a list of rules.', [
      { path: '/body/rules', message: 'must be a list' },
    ]);
  }
  if (rules.length > MAX_RULES) {
    throw new DomainError('validation_failed', 'The blocklist has too many rules.', [
      { path: '/body/rules', message: `must hold at most ${MAX_RULES} rules` },
    ]);
  }
  const problems: FieldProblem[] = [];
  // A plain loop rather than forEach: forEach skips the holes of a sparse array, and a hole is a bad rule too.
  for (let i = 0; i < rules.length; i++) problems.push(...ruleProblems(rules[i], `/body/rules/${i}`));
  if (problems.length > 0) throw new DomainError('validation_failed', 'Some blocklist rules cannot be used; see errors.', problems);
}

function ruleProblems(rule: unknown, at: string): FieldProblem[] {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
    return [{ path: at, message: 'must be an object with type and one of values or pattern' }];
  }
  const { type, values, pattern, ignoreCase } = rule as Partial<Record<keyof BlockRule, unknown>>;
  const problems: FieldProblem[] = [];
  if (typeof type !== 'string') problems.push({ path: `${at}/type`, message: 'must be a string' });
  if (typeof ignoreCase !== 'boolean') problems.push({ path: `${at}/ignore_case`, message: 'must be true or false' });
  if ((values === undefined) === (pattern === undefined)) {
    problems.push({ path: at, message: 'give exactly one of values or pattern' });
  } else if (values !== undefined) {
    problems.push(...valuesProblems(values, `${at}/values`));
  } else {
    const problem = patternProblem(pattern);
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
function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'must be a string';
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    RE2JS.compile(pattern);
  } catch (e) {
    return `is not a regular expression RE2 accepts (${compileFailure(e)}); RE2 has no lookaround and no backreferences`;
  }
  // safe-regex2 answers false, never throws, for what it cannot parse; the message covers both meanings.
  if (!safeRegex(pattern)) return UNSAFE_PATTERN;
  return undefined;
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
   * The index of the first rule that blocks `id`, or -1. A rule blocks an ID of its type whose value is one of its
   * `values`, or which its `pattern` matches as a whole; both compared case-insensitively when ignoreCase.
   */
  ruleBlocking(id: IdPair): number;
}

/** One rule, compiled: it blocks a value when the set holds it, or the pattern matches all of it. */
interface CompiledRule {
  index: number;
  ignoreCase: boolean;
  /** Lower-cased when ignoreCase, and then looked up with the lower-cased value. */
  values?: ReadonlySet<string>;
  pattern?: RE2JS;
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
    let lowerCased: string | undefined;
    for (const rule of rules) {
      if (rule.values !== undefined) {
        const value = rule.ignoreCase ? (lowerCased ??= id.id.toLowerCase()) : id.id;
        if (rule.values.has(value)) return rule.index;
      } else if (rule.pattern !== undefined && rule.pattern.testExact(id.id)) {
        return rule.index;
      }
    }
    return -1;
  }
}

const EMPTY: Blocklist = new CompiledBlocklist(new Map());

function compileRule(rule: BlockRule, index: number): CompiledRule {
  if (rule.values !== undefined) {
    return { index, ignoreCase: rule.ignoreCase, values: new Set(rule.ignoreCase ? rule.values.map((v) => v.toLowerCase()) : rule.values) };
  }
  // testExact matches the whole value, so `a|b` blocks "a" and "b" but not "ab", with no anchors to add.
  const flags = rule.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  return { index, ignoreCase: rule.ignoreCase, pattern: RE2JS.compile(rule.pattern ?? '', flags) };
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

const CACHE_SIZE = 256;
/** Compiled blocklists by a digest of their rules' content, least recently used first (a Map keeps insertion order). */
const byContent = new Map<string, Blocklist>();
/**
 * The same rules array gives the same blocklist without hashing it again: a store that keeps a customer's policy in
 * memory hands back the same array on every write, and digesting 100 rules of 1,000 values costs milliseconds. An
 * entry lives as long as the caller's array; rules arrays are never changed in place once compiled.
 */
const byArray = new WeakMap<readonly BlockRule[], Blocklist>();

/** A digest, not the JSON text itself, as the key: the text of a large blocklist is megabytes. */
const contentKey = (rules: readonly BlockRule[]): string =>
  createHash('sha256')
    .update(JSON.stringify(rules.map((r) => [r.type, r.values ?? null, r.pattern ?? null, r.ignoreCase])))
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
  if (blocklist !== undefined) {
    byContent.delete(key); // set again below, as the most recently used
  } else {
    blocklist = compile(rules);
    const oldest = byContent.keys().next().value;
    if (byContent.size >= CACHE_SIZE && oldest !== undefined) byContent.delete(oldest);
  }
  byContent.set(key, blocklist);
  byArray.set(rules, blocklist);
  return blocklist;
}

/** How many compiled blocklists the cache holds (for tests). */
export const blocklistCacheSize = (): number => byContent.size;
