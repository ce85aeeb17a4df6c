import type { PoolStatus } from '../activator/index.js';
import { renderStatus, statusRows } from './status.js';
import type { FunctionRow, TriggerCounts } from './status.js';

function pool(name: string, over: Partial<PoolStatus> = {}): PoolStatus {
  return {
    name,
    namespace: 'landscape-system',
    replicas: 0,
    ready: 0,
    inFlight: 0,
    queued: 0,
    coldStarts: 0,
    answered: 0,
    redelivered: 0,
    desired: 0,
    pods: [],
    ...over,
  };
}

function row(fn: string, over: Partial<FunctionRow> = {}): FunctionRow {
  return {
    function: fn,
    namespace: 'landscape-system',
    replicas: 0,
    desired: 0,
    inFlight: 0,
    queued: 0,
    coldStarts: 0,
    delivered: 0,
    retried: 0,
    deadLettered: 0,
    ...over,
  };
}

describe('statusRows', () => {
  const counts = new Map<string, TriggerCounts>([
    ['landscape-system/requeue-tick', { delivered: 120, retried: 2, deadLettered: 1 }],
    ['other/dead-letter', { delivered: 9, retried: 9, deadLettered: 9 }],
  ]);

  it.each<[string, PoolStatus, FunctionRow]>([
    [
      'the pool and the counts of its triggers',
      pool('requeue-tick', {
        replicas: 2,
        ready: 1,
        desired: 2,
        inFlight: 3,
        queued: 4,
        coldStarts: 5,
        answered: 99,
      }),
      row('requeue-tick', {
        replicas: 2,
        desired: 2,
        inFlight: 3,
        queued: 4,
        coldStarts: 5,
        delivered: 120,
        retried: 2,
        deadLettered: 1,
      }),
    ],
    ['a function without triggers: zeros', pool('lonely', { replicas: 1 }), row('lonely', { replicas: 1 })],
    ['counts are per namespace: same name elsewhere gets zeros', pool('dead-letter'), row('dead-letter')],
    [
      'counts of its own namespace',
      pool('dead-letter', { namespace: 'other' }),
      row('dead-letter', { namespace: 'other', delivered: 9, retried: 9, deadLettered: 9 }),
    ],
  ])('%s', (_, p, expected) => {
    expect(statusRows([p], counts)).toStrictEqual([expected]);
  });

  it('one row per pool, in order', () => {
    expect(statusRows([pool('b'), pool('a')], new Map()).map((r) => r.function)).toEqual(['b', 'a']);
  });
});

describe('renderStatus', () => {
  const HEADER =
    'FUNCTION   REPLICAS   IN-FLIGHT   QUEUED   COLD-STARTS   DELIVERED   RETRIED   DEAD-LETTERED';

  it.each<[string, FunctionRow[], string[]]>([
    ['no functions: the header only', [], [HEADER]],
    [
      'columns aligned to the widest cell, three spaces apart, no trailing blanks',
      [
        row('requeue-tick', { replicas: 1, coldStarts: 3, delivered: 120, retried: 2 }),
        row('dead-letter', { replicas: 10, inFlight: 1234567890, deadLettered: 7 }),
        row('x'),
      ],
      [
        'FUNCTION       REPLICAS   IN-FLIGHT    QUEUED   COLD-STARTS   DELIVERED   RETRIED   DEAD-LETTERED',
        'requeue-tick   1          0            0        3             120         2         0',
        'dead-letter    10         1234567890   0        0             0           0         7',
        'x              0          0            0        0             0           0         0',
      ],
    ],
    [
      'functions without triggers show zeros',
      statusRows([pool('lonely')], new Map()),
      [HEADER, 'lonely     0          0           0        0             0           0         0'],
    ],
  ])('%s', (_, rows, lines) => {
    expect(renderStatus(rows)).toBe(lines.join('\n'));
  });
});
