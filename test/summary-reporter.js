// Ends every run with one plain line, "Summary: N passed, N failed, N skipped", for readers that look for it (CI),
// after the five slowest files of the run: where to look first when a stage of CI grows.
const path = require('node:path');

const SLOWEST = 5;

class SummaryReporter {
  /**
   * @param {unknown} _contexts
   * @param {import('@jest/test-result').AggregatedResult} results
   */
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, testResults } = results;
    const slowest = testResults
      .map((file) => ({ file: path.relative(process.cwd(), file.testFilePath), seconds: (file.perfStats.end - file.perfStats.start) / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SLOWEST);
    if (slowest.length > 1) process.stdout.write(`\nSlowest files: ${slowest.map(({ file, seconds }) => `${file} ${seconds.toFixed(1)} s`).join(', ')}\n`);
    process.stdout.write(`\nSummary: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`);
  }
}

module.exports = SummaryReporter;
