// Before the browser suites: Debian's Chromium must be there (a missing browser fails the run, saying how to get it:
// the suite never downloads one), and the page is built into dist/explorer, which GET /explore serves, when its sources
// changed (test/build.js).
const fs = require('node:fs');
const { build } = require('../build');

const CHROMIUM = '/usr/bin/chromium';

module.exports = async function globalSetup() {
  if (!fs.existsSync(CHROMIUM)) {
    const reason = `${CHROMIUM} is missing: install Debian's package (apt-get install -y --no-install-recommends chromium). The browser suite never downloads a browser.`;
    process.stderr.write(`\n${reason}\n`);
    throw new Error(reason);
  }
  build(['explorer']);
};
