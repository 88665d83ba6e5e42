// Builds what the suites run and serve, each part only when its inputs changed: dist/ (tsc -p tsconfig.build.json;
// the process suites start the real server as `npm start` does) and dist/explorer/ (explorer/build.mjs; GET /explore
// serves it). A part keeps the SHA-256 of its inputs in dist/ once built, so jest runs in a row (CI has four) build
// once, and a fresh checkout or an edited source builds again. `node test/build.js` builds both parts.
'use strict';
const { createHash } = require('node:crypto');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');

/**
 * @typedef {object} Part
 * @property {string[]} inputs files and folders (every file under them) whose contents decide the output
 * @property {string} output a file the build writes, missing until it has run
 * @property {string[]} command what builds it: a script run by this Node
 */

/** @type {Record<'server' | 'explorer', Part>} */
const PARTS = {
  server: {
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    output: path.join(DIST, 'main.js'),
    command: [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  },
  explorer: {
    inputs: ['explorer', 'package-lock.json'],
    output: path.join(DIST, 'explorer', 'explorer.js'),
    command: [path.join(ROOT, 'explorer', 'build.mjs')],
  },
};

/** @param {string} relative @returns {string[]} every file at or under `relative`, sorted */
function filesOf(relative) {
  const absolute = path.join(ROOT, relative);
  if (!fs.statSync(absolute).isDirectory()) return [relative];
  return fs
    .readdirSync(absolute, { withFileTypes: true })
    .flatMap((entry) => filesOf(path.join(relative, entry.name)))
    .sort();
}

/** @param {Part} part */
function inputsHash(part) {
  const hash = createHash('sha256');
  for (const file of part.inputs.flatMap(filesOf))
    hash
      .update(`${file}\0`)
      .update(fs.readFileSync(path.join(ROOT, file)))
      .update('\0');
  return hash.digest('hex');
}

/** @param {keyof typeof PARTS} name */
const stampOf = (name) => path.join(DIST, `.inputs-${name}.sha256`);

/**
 * Builds the named parts whose output is missing or whose inputs differ from the stamp of their last build.
 * @param {Array<keyof typeof PARTS>} [names]
 */
function build(names = ['server', 'explorer']) {
  for (const name of names) {
    const part = PARTS[name];
    const hash = inputsHash(part);
    const stamp = stampOf(name);
    if (fs.existsSync(part.output) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === hash) {
      process.stdout.write(`build: ${name} up to date\n`);
      continue;
    }
    fs.rmSync(stamp, { force: true });
    execFileSync(process.execPath, part.command, { cwd: ROOT, stdio: 'inherit' });
    // Written whole, then renamed: another run reading the stamp meanwhile sees the old one or the new one.
    const staged = `${stamp}.${process.pid}`;
    fs.writeFileSync(staged, hash);
    fs.renameSync(staged, stamp);
  }
}

module.exports = { build };

if (require.main === module) build();
