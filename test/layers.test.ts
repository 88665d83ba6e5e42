// House rules about what imports what, read from the sources: the domain
// owns the store ports (src/domain/ports/) and imports neither a store nor the HTTP layer, no file of src/ is part of
// an import cycle (type-only imports included), only
// src/config.ts reads process.env, and only src/store/sqlite/driver.ts loads better-sqlite3.
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.join(__dirname, '..', 'src');

/** Every file under `dir` whose name matches `names` (.ts files by default), as paths relative to `from` (src/). */
function sources(dir: string, from = SRC, names = /\.ts$/): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full, from, names);
    return names.test(entry.name) ? [path.relative(from, full)] : [];
  });
}

/** The files under src/ that `file` imports (static and dynamic imports, `export … from`), relative to src/. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1] as string);
  return specifiers.map((s) => path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), s)));
}

const files = sources(SRC);

/** The file an import of importsOf names: `x.ts`, or `x/index.ts`; undefined for what is not a source of src/. */
function resolved(target: string, known: ReadonlySet<string>): string | undefined {
  return [`${target}.ts`, path.join(target, 'index.ts'), target].find((candidate) => known.has(candidate));
}

/**
 * The import cycles among `graph`'s files: its strongly connected components of more than one file, and any file
 * that imports itself (Tarjan's algorithm). Each cycle's files are sorted, and the cycles by their first file.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    lowest.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        lowest.set(file, Math.min(lowest.get(file) ?? 0, lowest.get(to) ?? 0));
      } else if (onStack.has(to)) {
        lowest.set(file, Math.min(lowest.get(file) ?? 0, index.get(to) ?? 0));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = top === file ? undefined : stack.pop()) {
      onStack.delete(top);
      component.push(top);
    }
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

test('when the sources are read, then they are found (the rules below have something to check)', () => {
  expect(files).toContain(path.join('domain', 'ports', 'node-writes.ts'));
  expect(importsOf(path.join('domain', 'nodes.ts'))).toContain(path.join('domain', 'ports', 'node-writes'));
});

test('when a file of src/domain/ imports, then never from src/store/ or src/http/', () => {
  const crossing = files
    .filter((file) => file.startsWith(`domain${path.sep}`))
    .flatMap((file) =>
      importsOf(file)
        .filter((to) => /^(store|http)[\\/]/.test(to))
        .map((to) => `${file} → ${to}`),
    );
  expect(crossing).toEqual([]);
});

test('when the cycle finder reads a graph, then it names each cycle once, and nothing of a graph without one', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts', 'd.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['e.ts']],
    ['e.ts', ['d.ts']],
    ['f.ts', ['f.ts']],
    ['g.ts', ['a.ts']],
  ]);
  expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts', 'e.ts'], ['f.ts']]);
  expect(
    importCycles(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', []],
      ]),
    ),
  ).toEqual([]);
});

test('when the files of src/ import one another (type-only imports and re-exports included), then no import leads back to where it started', () => {
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, importsOf(file).flatMap((to) => resolved(to, known) ?? [])]));
  // Something to find: the domain's services import their ports, with `import type`.
  expect(graph.get(path.join('domain', 'nodes.ts'))).toContain(path.join('domain', 'ports', 'node-writes.ts'));
  expect(importCycles(graph).map((cycle) => `a cycle among ${cycle.join(', ')}`)).toEqual([]);
});

test('when a file reads process.env, then it is src/config.ts', () => {
  const readers = files.filter((file) => /process\.env\b/.test(fs.readFileSync(path.join(SRC, file), 'utf8').replace(/^\s*\/\/.*$/gm, '')));
  expect(readers).toEqual(['config.ts']);
});

// better-sqlite3 12 aborts a Node 24 process when a statement or connection it made is freed with no Node environment
// current (at a worker's exit); the driver module (src/store/sqlite/driver.ts) loads 13 on Node 22 and later, by the
// package's name in a variable. A test that loaded 12 itself took a jest worker down on Node 24.
test('when a file of src/, test/ or bench/ loads better-sqlite3 by name, then none does (types aside): all go through the driver module', () => {
  const ROOT = path.join(__dirname, '..');
  const loads = (text: string) => /(?:^import (?!type\b)[^;]*from|require\(|import\()\s*'better-sqlite3(?:-napi)?'/m.test(text);
  expect([loads("import Database from 'better-sqlite3';"), loads("import type Database from 'better-sqlite3';")]).toEqual([true, false]);
  const loaders = ['src', 'test', 'bench']
    .flatMap((dir) => sources(path.join(ROOT, dir), ROOT, /\.(ts|js)$/))
    .filter((file) => loads(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  expect(loaders).toEqual([]);
});
