/**
 * The Node 24 leg of CI (.ci/run): the suites of `npm test` whose outcome can change with the Node version, chosen by
 * where they live, so a new suite lands in the leg its folder says:
 * - test/store-contract/sqlite*.test.ts and test/store/: the SQLite driver, which differs by Node version
 *   (src/store/sqlite/driver.ts), in memory, on a WAL file and in the read pool's worker threads;
 * - test/process/: the built server as a child process (signals, exit codes, memory bounds under V8's settings);
 * - test/http/: the HTTP layer on Node's own server and parser, whose limits and timeouts are Node's;
 * - any *memory* suite: a bound on memory is a bound on what V8 does;
 * - test/docs/examples.test.ts: the README's walkthrough against the built server, as a user on Node 24 runs it.
 * The rest (the rules through the API, fuzzing, the docs' layout, the Cypher files, the explorer) runs on Node 20.
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: [
    '<rootDir>/test/store-contract/**/sqlite*.test.ts',
    '<rootDir>/test/store/**/*.test.ts',
    '<rootDir>/test/process/**/*.test.ts',
    '<rootDir>/test/http/**/*.test.ts',
    '<rootDir>/test/**/*memory*.test.ts',
    '<rootDir>/test/docs/examples.test.ts',
  ],
};
