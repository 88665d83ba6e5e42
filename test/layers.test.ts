// House rules about what imports what, read from the sources: the domain
// owns the store port (src/domain/store.ts) and imports neither a store nor the HTTP layer, and only
// src/config.ts reads process.env.
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.join(__dirname, '..', 'src');

/** Every .ts file under `dir`, as paths relative to src/. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, full)] : [];
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
  expect(files).toContain(path.join('domain', 'store.ts'));
  expect(importsOf(path.join('domain', 'nodes.ts'))).toContain(path.join('domain', 'store'));
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
