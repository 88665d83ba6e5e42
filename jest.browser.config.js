/**
 * `npm run test:browser`: the explorer page (GET /explore) in Debian's Chromium, driven by playwright-core, against
 * the real app on an in-memory SQLite store. Screenshots go to test-artifacts/ (not committed).
 */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.browser.test.ts'],
  globalSetup: '<rootDir>/test/browser/global-setup.js',
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  // A worker per core, each file with a browser of its own: no test holds a drawing to a time (the times it measures
  // are printed, not asserted), and neo4j-browser.browser.test.ts waits for a Neo4j to start while the others draw.
  maxWorkers: '100%',
  testTimeout: 60000,
};
