import { evaluate, JsonPathError, parsePath } from './jsonpath.js';

const pod = {
  metadata: { name: 'p', labels: { 'app.kubernetes.io/name': 'web' } },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'Initialized', status: 'True' },
      { type: 'PodScheduled', status: 'False', count: 3 },
    ],
    containerStatuses: [{ ready: true }, { ready: false }],
  },
};

describe('evaluate(parsePath(...)) on a Pod', () => {
  it.each<[string, unknown[]]>([
    ['.status.phase', ['Running']],
    ['status.phase', ['Running']],
    ['.status.missing', []],
    ['.status.phase.deeper', []],
    ["['metadata']['labels']['app.kubernetes.io/name']", ['web']],
    [".metadata.labels['app.kubernetes.io/name']", ['web']],
    ['.status.conditions[0].type', ['Ready']],
    ['.status.conditions[-1].type', ['PodScheduled']],
    ['.status.conditions[9].type', []],
    ['.status.conditions[*].status', ['True', 'True', 'False']],
    ['.status.containerStatuses.*.ready', [true, false]],
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    [".status.conditions[?(@.type != 'Ready')].type", ['Initialized', 'PodScheduled']],
    ['.status.conditions[?(@.count >= 3)].type', ['PodScheduled']],
    ['.status.conditions[?(@.count)].type', ['PodScheduled']],
    ['.status.conditions', [pod.status.conditions]],
  ])('%s', (path, want) => {
    expect(evaluate(parsePath(path), pod)).toEqual(want);
  });

  it.each(['.status[', '.a..b', '.a[?(@.b ~ 1)]', '.a[foo]', '.a[?(@.b == bare)]', 'a b'])(
    '%s is refused',
    (path) => {
      expect(() => parsePath(path)).toThrow(JsonPathError);
    },
  );
});
