// House rules about what imports what, read from the sources: the domain
// owns the store ports (src/domain/ports/) and imports neither a store nor the HTTP layer, only
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
