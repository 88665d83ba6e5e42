// Finds text that is not well-formed Unicode in what a client sent. JSON's `\ud800` escapes can spell a lone
// UTF-16 surrogate, which no UTF-8 store can keep: it would be stored as U+FFFD, or refused by the store as a
// fault of ours. Raw bytes cannot (the body decoder turns bad UTF-8 into U+FFFD), nor can a path or query (their
// percent-decoding refuses or replaces bad UTF-8), so JSON values are where it is caught, once, before any rule
// reads them.
import type { FieldProblem } from '../domain/errors';

/** Enough to show what is wrong; a body full of broken strings does not make an answer of the same size. */
const MAX_PROBLEMS = 10;

const BROKEN_VALUE = 'is not well-formed Unicode (it holds a lone UTF-16 surrogate)';
const BROKEN_NAME = 'has a field name that is not well-formed Unicode (it holds a lone UTF-16 surrogate)';

/** A JSON pointer token (RFC 6901), as Ajv writes them in its error paths. */
const pointerToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The places in `value` holding a lone surrogate, as JSON pointers under `at`. A broken field name is reported at
 * its object (the path never repeats the broken text) and what it holds is not looked into. The walk keeps its
 * own stack: a deeply nested body must not overflow the call stack.
 */
export function brokenUnicode(value: unknown, at: string): FieldProblem[] {
  if (allWellFormed(value)) return [];
  const problems: FieldProblem[] = [];
  const pending: Array<{ value: unknown; at: string }> = [{ value, at }];
  for (let next = pending.pop(); next !== undefined && problems.length < MAX_PROBLEMS; next = pending.pop()) {
    if (typeof next.value === 'string') {
      if (!next.value.isWellFormed()) problems.push({ path: next.at, message: BROKEN_VALUE });
    } else if (Array.isArray(next.value)) {
      for (let i = next.value.length - 1; i >= 0; i -= 1) pending.push({ value: next.value[i], at: `${next.at}/${i}` });
    } else if (next.value !== null && typeof next.value === 'object') {
      const entries = Object.entries(next.value);
      if (entries.some(([key]) => !key.isWellFormed())) problems.push({ path: next.at, message: BROKEN_NAME });
      // Pushed last first, so the first is looked into first.
      for (const [key, held] of entries.reverse()) {
        if (key.isWellFormed()) pending.push({ value: held, at: `${next.at}/${pointerToken(key)}` });
      }
    }
  }
  return problems;
}

/**
 * Whether every string and field name in `value` is well-formed: the same walk without the paths, which every
 * request and every bulk line takes (building a pointer for each value cost more than the check itself).
 */
function allWellFormed(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (!next.isWellFormed()) return false;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (next !== null && typeof next === 'object') {
      for (const key in next) {
        if (!Object.hasOwn(next, key)) continue;
        if (!key.isWellFormed()) return false;
        pending.push(Reflect.get(next, key));
      }
    }
  }
  return true;
}
