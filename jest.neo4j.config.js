/**
 * `npm run test:neo4j`: the store contract (test/store-contract/*.neo4j.test.ts), the Neo4j-only suites
 * (test/neo4j/*.neo4j.test.ts), the API suites, which all reach the store (test/api/; what the HTTP layer decides
 * alone is in test/http/ and runs on SQLite only), and the docs' examples (test/docs/*.neo4j.test.ts) against a real Neo4j, chosen by
 * test/neo4j/global-setup.js: NEO4J_TEST_URI (never NEO4J_URI), else a container when Docker is there, else the local server of
 * neo4j-local/. The database is emptied before each test file, only when it is the suites' own (test-database.js).
 *
 * The files wait on round trips, timeouts and child processes far more than they compute, so they run in WORKERS
 * jest workers, each on a server of its own that global-setup.js starts (docs/neo4j.md#the-neo4j-suites). A database
 * NEO4J_TEST_URI names is one database for all files: then they run one at a time.
 */
const WORKERS = 2;
const givenDatabase = Boolean(process.env.NEO4J_TEST_URI) && process.env.NEO4J_TEST_SERVER !== 'local';

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  roots: ['<rootDir>/test'],
  testMatch: [
    '<rootDir>/test/store-contract/**/*.neo4j.test.ts',
    '<rootDir>/test/neo4j/**/*.neo4j.test.ts',
    '<rootDir>/test/api/**/*.test.ts',
    '<rootDir>/test/docs/**/*.neo4j.test.ts',
  ],
  globalSetup: '<rootDir>/test/neo4j/global-setup.js',
  globalTeardown: '<rootDir>/test/neo4j/global-teardown.js',
  testSequencer: '<rootDir>/test/neo4j/sequencer.js',
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  setupFilesAfterEnv: ['<rootDir>/test/neo4j/setup-file.ts'],
  testTimeout: 60000,
  maxWorkers: givenDatabase ? 1 : WORKERS,
};
