/** Default test run: everything that needs no Docker and no Neo4j. */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The Neo4j-only suites run with `npm run test:neo4j` (jest.neo4j.config.js), the browser suites with
  // `npm run test:browser` (jest.browser.config.js).
  testPathIgnorePatterns: ['/node_modules/', '\\.neo4j\\.test\\.ts$', '\\.browser\\.test\\.ts$'],
  globalSetup: '<rootDir>/test/global-setup.js',
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  // The known long files first when jest has no durations of an earlier run (a fresh clone), so that no worker ends
  // the run alone on one of them.
  testSequencer: '<rootDir>/test/sequencer.js',
  testTimeout: 30000,
  // A worker for every core, where Jest's default leaves one to itself: the suites wait on sockets and timers as much
  // as they compute, and on two cores two workers ran the suites in about 245 s where one took about 380.
  maxWorkers: '100%',
};
