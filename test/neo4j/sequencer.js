// The order in which `npm run test:neo4j` hands its files to the jest workers: the longest first, so that no worker
// is left running a long file alone at the end. Jest orders by the durations it kept from the last run, and without
// them (a fresh clone, or a new cache folder) by file size, which puts some of the longest files late (the store
// contract is a short file that runs a long contract). Where jest kept no duration, the seconds below stand in: what
// the longest files took in CI on a busy 2-core machine, two workers; only their order matters. A file not listed and not
// yet timed goes after them.
//
// The files that change the database's constraints or indexes go last, whatever their length. Neo4j forgets every
// statement it has planned for a database when that database's schema changes, and plans each again at its next use:
// measured on the store contract, 36 s of the server's CPU after a change against 13–17 s warm. A file that changes
// the schema in the middle of the run makes every file after it on its worker pay that again; at the end, few do.
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds, by path from the repository's root. */
const EXPECTED_SECONDS = {
  'test/neo4j/faults.neo4j.test.ts': 240,
  'test/store-contract/neo4j.neo4j.test.ts': 140,
  'test/store-contract/neo4j-history.neo4j.test.ts': 90,
  'test/neo4j/local-security.neo4j.test.ts': 87,
  'test/neo4j/why-hub.neo4j.test.ts': 65,
  'test/neo4j/import-restart.neo4j.test.ts': 58,
  'test/api/auth.test.ts': 57,
  'test/api/answer-memory.test.ts': 52,
  'test/api/protections.test.ts': 47,
  'test/docs/examples.neo4j.test.ts': 44,
  'test/api/concurrency.test.ts': 40,
  'test/api/showing.test.ts': 37,
  'test/api/request-errors.test.ts': 33,
  'test/neo4j/graph-race.neo4j.test.ts': 31,
  'test/store-contract/neo4j-deliveries.neo4j.test.ts': 28,
  'test/api/admin.test.ts': 27,
  'test/neo4j/write-gathering.neo4j.test.ts': 26,
  'test/api/graph.test.ts': 26,
};

const ROOT = path.resolve(__dirname, '..', '..');

/** Cypher that creates or drops a constraint or an index, or a call that applies cypher/schema/ again. */
const CHANGES_SCHEMA = /\b(?:CREATE|DROP)\s+(?:INDEX|CONSTRAINT)\b|\.applySchema\(/;

/** @param {import('@jest/test-result').Test} test */
const changesSchema = (test) => CHANGES_SCHEMA.test(fs.readFileSync(test.path, 'utf8'));

/** @param {import('@jest/test-result').Test} test */
const expectedMs = (test) => {
  const seconds = /** @type {Record<string, number>} */ (EXPECTED_SECONDS)[path.relative(ROOT, test.path).split(path.sep).join('/')];
  return seconds === undefined ? undefined : seconds * 1000;
};

class LongestFirst extends Sequencer {
  /**
   * Longest first, by the duration jest kept, else the expected one; the files with neither go last, by size; and
   * after all of them, the files that change the schema. (Jest's own order also puts the files that failed last time
   * first: for a run this long, finishing early matters more.)
   * @override
   * @param {Array<import('@jest/test-result').Test>} tests
   */
  async sort(tests) {
    // Jest's sort sets each test's kept duration, and orders by size where there is none.
    const bySize = await super.sort(tests);
    const estimate = (/** @type {import('@jest/test-result').Test} */ test) => test.duration ?? expectedMs(test) ?? -1;
    const longestFirst = [...bySize].sort((a, b) => estimate(b) - estimate(a));
    const last = new Set(longestFirst.filter(changesSchema));
    return [...longestFirst.filter((test) => !last.has(test)), ...last];
  }
}

module.exports = LongestFirst;
