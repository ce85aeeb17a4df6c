import { findResults, parseJSONPath } from './jsonpath.js';

describe('JSONPath (client-go, missing keys allowed)', () => {
  const doc = {
    metadata: { name: 'x', labels: { app: 'web', 'app.kubernetes.io/name': 'shop' } },
    spec: {
      type: 'g',
      x: [10, 20, 30],
      nothing: null,
      nested: { b: 2, a: 1 },
      items: [{ name: 'a', size: 1 }, { name: 'b', size: 2 }, { name: 'c' }],
    },
    status: {
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'Healthy', status: 'False' },
        { type: 'Ready', status: 'Unknown' },
      ],
    },
  };
  test.each<[string, unknown[] | 'error']>([
    ['.spec.type', ['g']],
    ['$.spec.type', ['g']],
    ['.metadata.labels.app', ['web']],
    ['.metadata.labels.app\\.kubernetes\\.io/name', ['shop']],
    [".metadata.labels['app']", ['web']],
    ['.status.conditions[?(@.type=="Ready")].status', ['True', 'Unknown']],
    [".status.conditions[?(@.type == 'Healthy')].status", ['False']],
    ['.status.conditions[?(@.type!="Ready")].type', ['Healthy']],
    ['.spec.items[?(@.size>1)].name', ['b']],
    ['.spec.items[?(@.size)].name', ['a', 'b']],
    ['.spec.items[*].name', ['a', 'b', 'c']],
    ['.spec.x[0]', [10]],
    ['.spec.x[-1]', [30]],
    ['.spec.x[0:2]', [10, 20]],
    ['.spec.x[::2]', [10, 30]],
    ['.spec.nested.*', [1, 2]],
    ['..name', ['x', 'a', 'b', 'c']],
    ['.spec.nothing', [null]],
    ['.spec.missing', []],
    ['.spec.missing[0]', []],
    ['.spec.missing[?(@.a=="b")]', []],
    ['.spec.x[5]', 'error'],
    ['.spec.type[0]', 'error'],
    ['.status.conditions[?(@.type==1)]', 'error'],
    ['.spec.items[', 'error'],
    ['.spec.items[?(@.a', 'error'],
    ['spec', 'error'],
  ])('%s', (path, expected) => {
    const run = (): unknown[] => findResults(parseJSONPath(path), doc);
    if (expected === 'error') expect(run).toThrow();
    else expect(run()).toEqual(expected);
  });
});
