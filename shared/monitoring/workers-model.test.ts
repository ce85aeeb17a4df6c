import {
  maxWorkers,
  shouldLogWorkers,
  WorkerCounterError,
  workerMember,
  workersKey,
  workerThreadsLine,
} from './index.js';

describe('shouldLogWorkers: more than 70% of instances × concurrency', () => {
  it.each([
    // count, instances, concurrency, log?
    [7, 1, 10, false], // exactly 70%: not above
    [8, 1, 10, true],
    [0, 1, 10, false],
    [21, 3, 10, false],
    [22, 3, 10, true],
    [1, 1, 1, true], // 100% of one
    [0, 1, 1, false],
    [2, 2, 1, true],
    [1, 2, 1, false],
    [15, 2, 10, true],
    [14, 2, 10, false],
    [1000, 0, 10, false], // max-scale 0: no limit, no maximum
    [1000, 3, 0, false], // containerConcurrency 0: no limit
    [5, -1, 10, false],
    [5, Number.POSITIVE_INFINITY, 10, false],
    [5, Number.NaN, 10, false],
  ])('%d in flight, %d instances × %d → %s', (count, instances, concurrency, want) => {
    expect(shouldLogWorkers(count, instances, concurrency)).toBe(want);
  });

  it.each([
    [3, 10, 30],
    [1, 1, 1],
    [0, 10, undefined],
    [3, 0, undefined],
  ])('maxWorkers(%d, %d) = %s', (instances, concurrency, want) => {
    expect(maxWorkers(instances, concurrency)).toBe(want);
  });
});

describe('keys and members', () => {
  it('keys one sorted set per controller in the monitoring family', () => {
    expect(workersKey('deployer-mock')).toBe('landscape:monitoring:workers:deployer-mock');
    expect(workersKey('a:b')).toBe('landscape:monitoring:workers:a%3Ab');
    expect(() => workersKey('')).toThrow(WorkerCounterError);
  });

  it('names an entry <instance>/<request id>', () => {
    expect(workerMember('deployer-mock-00001-pod-x', 'r1')).toBe('deployer-mock-00001-pod-x/r1');
    expect(() => workerMember('', 'r1')).toThrow(WorkerCounterError);
    expect(() => workerMember('pod', '')).toThrow(WorkerCounterError);
  });
});

describe('workerThreadsLine', () => {
  it('has the seed shape', () => {
    expect(workerThreadsLine('installations', 'Installation', 10)).toEqual({
      msg: 'worker threads of controller installations',
      fields: { reconciledResourceKind: 'Installation', usedWorkerThreads: 10 },
    });
  });
});
