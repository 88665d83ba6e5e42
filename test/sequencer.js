// The order jest starts the suites in. Its own sequencer starts the files whose durations it cached from an earlier run
// longest first; a file it has no duration for (every file, on a fresh clone such as CI's) it starts by size, largest
// first. Size says little here: test/cypher/lint.test.ts is small and CPU-bound for minutes (Neo4j's linter compiled to
// JavaScript), so on a fresh clone it started last and the run ended on it alone while the other worker had nothing
// left to do. The files below are known to be long; without a cached duration they start first, in this order.
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Long files (or folders of them) relative to the repository, longest first. */
const LONG_FIRST = ['test/fuzz/', 'test/cypher/lint.test.ts', 'test/docs/examples.test.ts', 'test/process/', 'test/api/auth.test.ts', 'test/bench/'];

const ROOT = path.resolve(__dirname, '..');

/** @param {string} file @returns {number} its place in LONG_FIRST, or LONG_FIRST.length */
function rank(file) {
  const relative = path.relative(ROOT, file).split(path.sep).join('/');
  const at = LONG_FIRST.findIndex((prefix) => relative.startsWith(prefix));
  return at === -1 ? LONG_FIRST.length : at;
}

class LongFirstSequencer extends Sequencer {
  /**
   * @override
   * @param {import('@jest/test-result').Test[]} tests
   */
  sort(tests) {
    const sorted = /** @type {Array<import('@jest/test-result').Test>} */ (super.sort(tests));
    // Only the files without a cached duration (which jest has not run before, so none failed) are reordered, among
    // themselves and in the places they already have: what jest knows from an earlier run still decides the rest.
    const places = sorted.flatMap((test, at) => (test.duration == null ? [at] : []));
    const unknown = places.map((at) => /** @type {import('@jest/test-result').Test} */ (sorted[at]));
    const reordered = unknown.map((test, at) => ({ test, at })).sort((a, b) => rank(a.test.path) - rank(b.test.path) || a.at - b.at);
    places.forEach((place, i) => {
      sorted[place] = /** @type {{ test: import('@jest/test-result').Test }} */ (reordered[i]).test;
    });
    return sorted;
  }
}

module.exports = LongFirstSequencer;
