// Prints one plain closing line, "jest: N passed, N failed, N skipped", that CI logs can be read by,
// preceded by the ten longest test files and the worker time per class of test (wall time in the
// workers), so a slow run says where it went.
const CLASSES = [
  ['drill', /\/test\/drill\//],
  ['e2e', /\/test\/e2e\//],
  ['integration', /\/test\/integration\//],
  ['other', /./],
];

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const all = results.testResults.map((r) => ({
      path: r.testFilePath,
      ms: r.perfStats.end - r.perfStats.start,
    }));
    const files = [...all].sort((a, b) => b.ms - a.ms).slice(0, 10);
    const cwd = process.cwd() + '/';
    const lines = files.map((f) => `  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.path.replace(cwd, '')}`);
    process.stdout.write(`\njest: longest files\n${lines.join('\n')}\n`);
    const byClass = CLASSES.map(([name, re]) => {
      const mine = all.filter((f) => CLASSES.find(([, r]) => r.test(f.path))[1] === re);
      const s = mine.reduce((n, f) => n + f.ms, 0) / 1000;
      return `${name} ${mine.length} files ${s.toFixed(0)} s`;
    });
    process.stdout.write(`jest: worker time by class: ${byClass.join(', ')}\n`);
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(
      `\njest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
