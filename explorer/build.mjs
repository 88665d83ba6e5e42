// Bundles the explorer page into dist/explorer/ (what GET /explore and /explore/<file> serve): explorer.js, minified,
// with its source map, and index.html and explorer.css as they are. Run by `npm run build:explorer`, `npm run build`,
// `npm start` (prestart), the test setup and the Dockerfile; paths are relative to this file, so any cwd works.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '..', 'dist', 'explorer');
// Built in a folder of its own beside `out`, then swapped in whole: a fresh folder (a file left from an older build
// would still be served), and a server reading `out` meanwhile (test suites build in their setup, and several may
// run at once) never finds it empty or half written.
const staging = `${out}.build-${process.pid}`;
fs.rmSync(staging, { recursive: true, force: true });
fs.mkdirSync(staging, { recursive: true });

await esbuild.build({
  entryPoints: [path.join(here, 'src', 'main.ts')],
  outfile: path.join(staging, 'explorer.js'),
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'iife',
  platform: 'browser',
  // What Debian's Chromium and any browser of the last few years run.
  target: ['es2020'],
  // The libraries' licence comments, kept in a file beside the bundle.
  legalComments: 'linked',
  logLevel: 'warning',
});
for (const file of ['index.html', 'explorer.css']) fs.copyFileSync(path.join(here, file), path.join(staging, file));

const bytes = fs.statSync(path.join(staging, 'explorer.js')).size;
// Another build may swap its own folder in between our two renames: then ours goes in on the next try.
const asides = [];
for (let attempt = 1; ; attempt++) {
  const aside = `${out}.old-${process.pid}-${attempt}`;
  try {
    fs.renameSync(out, aside);
    asides.push(aside);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') throw error;
  }
  try {
    fs.renameSync(staging, out);
    break;
  } catch (error) {
    if (attempt >= 5) throw error;
  }
}
for (const aside of asides) fs.rmSync(aside, { recursive: true, force: true });
process.stdout.write(`explorer: dist/explorer/explorer.js ${(bytes / 1024).toFixed(0)} KiB\n`);
