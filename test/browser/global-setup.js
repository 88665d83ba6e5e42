// Before the browser suites: Debian's Chromium must be there (a missing browser fails the run, saying how to get it:
// the suite never downloads one), and the page is built into dist/explorer, which GET /explore serves.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const CHROMIUM = '/usr/bin/chromium';

module.exports = async function globalSetup() {
  if (!fs.existsSync(CHROMIUM)) {
    const reason = `${CHROMIUM} is missing: install Debian's package (apt-get install -y --no-install-recommends chromium). The browser suite never downloads a browser.`;
    process.stderr.write(`\n${reason}\n`);
    throw new Error(reason);
  }
  const root = path.resolve(__dirname, '..', '..');
  execFileSync(process.execPath, [path.join(root, 'explorer', 'build.mjs')], { cwd: root, stdio: 'inherit' });
};
