// House rule read from the sources: src/ holds at most MAX_CASTS type assertions (`x as T`, `<T>x`), `as const`
// aside and src/generated/ aside. Rows are typed where they are read (better-sqlite3 statements with their
// parameters and rows, the Neo4j query's row type), JSON is narrowed by guards or Ajv's type predicates, and
// invariants are checked (src/domain/invariant.ts) rather than asserted: a cast is the last resort, and each one
// left says why.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.join(__dirname, '..', 'src');
const GENERATED = path.join(SRC, 'generated');
const MAX_CASTS = 80;

/** Every .ts file under `dir`, src/generated/ aside. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full === GENERATED ? [] : sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const isAsConst = (type: ts.TypeNode): boolean => ts.isTypeReferenceNode(type) && type.typeName.getText() === 'const';

/** How many type assertions `text` holds, read with the TypeScript parser (`as const` is not one). */
function castsIn(text: string, fileName: string): number {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  let casts = 0;
  const visit = (node: ts.Node): void => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !isAsConst(node.type)) casts += 1;
    ts.forEachChild(node, visit);
  };
  visit(file);
  return casts;
}

test('when a sample is counted, then `x as T` and `<T>x` count, and `as const` and `satisfies` do not', () => {
  const sample = [
    'const a = JSON.parse(text) as number;',
    'const b = <string>value;',
    'const c = JSON.parse(text) as unknown as Row;',
    "const d = ['a', 'b'] as const;",
    'const e = { k: 1 } satisfies Record<string, number>;',
  ].join('\n');
  expect(castsIn(sample, 'sample.ts')).toBe(4);
  expect(castsIn("const d = ['a'] as const;", 'sample.ts')).toBe(0);
});

test(`when the casts in src/ are counted, then there are at most ${MAX_CASTS}`, () => {
  const perFile = sources(SRC)
    .map((file) => ({ file: path.relative(SRC, file), casts: castsIn(fs.readFileSync(file, 'utf8'), file) }))
    .filter((f) => f.casts > 0)
    .sort((a, b) => b.casts - a.casts || a.file.localeCompare(b.file));
  const total = perFile.reduce((n, f) => n + f.casts, 0);
  expect(perFile.length).toBeGreaterThan(0);
  if (total > MAX_CASTS) {
    const most = perFile.slice(0, 10).map((f) => `  ${f.casts} src/${f.file}`);
    throw new Error(`src/ holds ${total} casts, more than ${MAX_CASTS}. The files with the most:\n${most.join('\n')}`);
  }
  expect(total).toBeLessThanOrEqual(MAX_CASTS);
});
