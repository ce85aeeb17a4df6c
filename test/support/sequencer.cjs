// Jest's test order, heaviest first. Jest's default sequencer orders a run it has no timing cache
// for (every clean clone, every CI run) by file size, so the drill — a small file that runs for
// minutes — started last and ran alone at the end (a 160 s tail in a 17 min run). Longest-first
// keeps both workers busy to the end: the drill files, then the end-to-end files (each starts a
// landscape), then the integration tests, then the rest; within a class jest's own order (failed
// first, then the cached duration, then size) is kept.
const Sequencer = require('@jest/test-sequencer').default;

const CLASSES = [/\/test\/drill\//, /\/test\/e2e\//, /\/test\/integration\//];

function rank(path) {
  const i = CLASSES.findIndex((re) => re.test(path));
  return i === -1 ? CLASSES.length : i;
}

class HeaviestFirst extends Sequencer {
  sort(tests) {
    const order = super.sort(tests).map((t, i) => ({ t, i, r: rank(t.path) }));
    order.sort((a, b) => a.r - b.r || a.i - b.i);
    return order.map((o) => o.t);
  }
}

module.exports = HeaviestFirst;
