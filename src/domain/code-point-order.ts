// Sorting in Unicode code-point order, the order the SQLite store gets from its BINARY collation. JavaScript's `<`
// compares UTF-16 code units, which puts U+10000 and above (surrogate pairs) before U+E000..U+FFFF, and Neo4j's own
// string order is not documented to be code-point order either; so the Neo4j store and the graph sort here.
import { present } from './invariant';
import type { IdPair } from './model';

/** Negative, zero or positive as `a` sorts before, with or after `b` in code-point order. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i += 1;
  if (i === length) return a.length < b.length ? -1 : 1;
  const ca = a.charCodeAt(i);
  const cb = b.charCodeAt(i);
  // Where either unit is below the surrogates, units and code points order alike (a surrogate stands for
  // U+D800 or more); only two units from U+D800 up need the code points.
  if (ca < 0xd800 || cb < 0xd800) return ca < cb ? -1 : 1;
  return byCodePoints(a, b);
}

function byCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length;) {
    const ca = present(a.codePointAt(i), 'a code point before the end');
    const cb = present(b.codePointAt(i), 'a code point before the end');
    if (ca !== cb) return ca < cb ? -1 : 1;
    // Equal code points take equal numbers of code units, so one index serves both strings.
    i += ca > 0xffff ? 2 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** By type, then by id, both in code-point order. */
export const byTypeThenId = (x: IdPair, y: IdPair): number => compareCodePoints(x.type, y.type) || compareCodePoints(x.id, y.id);
