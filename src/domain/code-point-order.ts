// Sorting in Unicode code-point order, the order the SQLite store gets from its BINARY collation. JavaScript's `<`
// compares UTF-16 code units, which puts U+10000 and above (surrogate pairs) before U+E000..U+FFFF, and Neo4j's own
// string order is not documented to be code-point order either; so the Neo4j store and the graph sort here.
import type { IdPair } from './model';

/** Negative, zero or positive as `a` sorts before, with or after `b` in code-point order. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length;) {
    const ca = a.codePointAt(i) as number;
    const cb = b.codePointAt(i) as number;
    if (ca !== cb) return ca < cb ? -1 : 1;
    // Equal code points take equal numbers of code units, so one index serves both strings.
    i += ca > 0xffff ? 2 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** By type, then by id, both in code-point order. */
export const byTypeThenId = (x: IdPair, y: IdPair): number => compareCodePoints(x.type, y.type) || compareCodePoints(x.id, y.id);
