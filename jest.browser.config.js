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
  // One browser at a time: this machine has two cores, and a drawing's timing should not share them.
  maxWorkers: 1,
  testTimeout: 60000,
};
