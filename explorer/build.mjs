// Bundles the explorer page into dist/explorer/ (what GET /explore and /explore/<file> serve): explorer.js, minified,
// with its source map, and index.html and explorer.css as they are. Run by `npm run build:explorer`, `npm run build`,
// `npm start` (prestart), the test setup and the Dockerfile; paths are relative to this file, so any cwd works.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '..', 'dist', 'explorer');

// A fresh folder: a file left from an older build would still be served.
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

await esbuild.build({
  entryPoints: [path.join(here, 'src', 'main.ts')],
  outfile: path.join(out, 'explorer.js'),
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
for (const file of ['index.html', 'explorer.css']) fs.copyFileSync(path.join(here, file), path.join(out, file));

const bytes = fs.statSync(path.join(out, 'explorer.js')).size;
process.stdout.write(`explorer: dist/explorer/explorer.js ${(bytes / 1024).toFixed(0)} KiB\n`);
