// Prints one plain closing line, "jest: N passed, N failed, N skipped", that CI logs can be read by,
// preceded by the ten longest test files (wall time in the worker) so a slow run says where it went.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const files = results.testResults
      .map((r) => ({ path: r.testFilePath, ms: r.perfStats.end - r.perfStats.start }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    const cwd = process.cwd() + '/';
    const lines = files.map((f) => `  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.path.replace(cwd, '')}`);
    process.stdout.write(`\njest: longest files\n${lines.join('\n')}\n`);
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(
      `\njest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
