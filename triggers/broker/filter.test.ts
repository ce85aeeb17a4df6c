import { buildEvent } from '../../shared/events/index.js';
import { evaluateFilter, filterResult, matches } from './filter.js';
import type { SubscriptionsApiFilter, Trigger } from './trigger.js';

const event = buildEvent({
  id: 'e1',
  type: 'dev.landscape.deployitem.reconcile',
  source: '/apis/v1/namespaces/ls/deployitems',
  deployertype: 'mock',
  namespace: 'ls',
  name: 'di-1',
});

type Row = [string, SubscriptionsApiFilter, 'pass' | 'fail' | 'none'];
const rows: Row[] = [
  ['exact on type', { exact: { type: 'dev.landscape.deployitem.reconcile' } }, 'pass'],
  ['exact on type, other value', { exact: { type: 'dev.landscape.requeue' } }, 'fail'],
  ['exact on an extension', { exact: { deployertype: 'mock' } }, 'pass'],
  ['exact on a missing extension', { exact: { target: 'x' } }, 'fail'],
  ['exact is case-sensitive', { exact: { deployertype: 'Mock' } }, 'fail'],
  ['exact on unset subject', { exact: { subject: 'x' } }, 'fail'],
  ['exact with an empty value is no filter', { exact: { type: '' } }, 'none'],
  ['prefix on type', { prefix: { type: 'dev.landscape.' } }, 'pass'],
  ['prefix, no match', { prefix: { type: 'dev.knative.' } }, 'fail'],
  ['prefix on a missing extension', { prefix: { uid: 'a' } }, 'fail'],
  ['suffix on type', { suffix: { type: '.reconcile' } }, 'pass'],
  ['suffix, no match', { suffix: { type: '.delete' } }, 'fail'],
  ['suffix on source', { suffix: { source: '/deployitems' } }, 'pass'],
  ['all: every one passes', { all: [{ exact: { namespace: 'ls' } }, { prefix: { name: 'di-' } }] }, 'pass'],
  ['all: one fails', { all: [{ exact: { namespace: 'ls' } }, { prefix: { name: 'x' } }] }, 'fail'],
  ['all: empty', { all: [] }, 'none'],
  ['any: one passes', { any: [{ exact: { namespace: 'nope' } }, { suffix: { name: '-1' } }] }, 'pass'],
  ['any: none passes', { any: [{ exact: { namespace: 'nope' } }, { suffix: { name: '-2' } }] }, 'fail'],
  ['any: empty', { any: [] }, 'none'],
  ['not: of a pass', { not: { exact: { deployertype: 'mock' } } }, 'fail'],
  ['not: of a fail', { not: { exact: { deployertype: 'manifest' } } }, 'pass'],
  ['not: of no filter', { not: { all: [] } }, 'none'],
  [
    'nested: all(any(...), not(...))',
    {
      all: [
        { any: [{ exact: { deployertype: 'helm' } }, { exact: { deployertype: 'mock' } }] },
        { not: { prefix: { namespace: 'kube-' } } },
      ],
    },
    'pass',
  ],
  [
    'nested: not(any(all(...)))',
    { not: { any: [{ all: [{ exact: { namespace: 'ls' } }, { suffix: { type: 'reconcile' } }] }] } },
    'fail',
  ],
  [
    'nested: any(not(...), all(fail))',
    { any: [{ not: { exact: { name: 'di-1' } } }, { all: [{ exact: { uid: 'u' } }] }] },
    'fail',
  ],
  ['cesql never matches (unsupported)', { cesql: "type = 'x'" }, 'fail'],
];

describe('evaluateFilter (Knative subscriptions API filters)', () => {
  it.each(rows)('%s', (_name, filter, want) => {
    expect(evaluateFilter(filter, event)).toBe(want);
  });
});

describe('matches (trigger)', () => {
  it.each<[string, Pick<Trigger, 'attributes' | 'filters'>, boolean]>([
    ['no filter at all delivers everything', {}, true],
    [
      'filter.attributes exact match',
      { attributes: { type: 'dev.landscape.deployitem.reconcile', deployertype: 'mock' } },
      true,
    ],
    [
      'filter.attributes one mismatch',
      { attributes: { type: 'dev.landscape.deployitem.reconcile', deployertype: 'helm' } },
      false,
    ],
    ['filter.attributes "" = present', { attributes: { deployertype: '' } }, true],
    ['filter.attributes "" on a missing extension', { attributes: { target: '' } }, false],
    ['filter.attributes "" on unset subject', { attributes: { subject: '' } }, false],
    ['filter.attributes empty map', { attributes: {} }, true],
    [
      'filters win over filter.attributes',
      { attributes: { type: 'other' }, filters: [{ exact: { deployertype: 'mock' } }] },
      true,
    ],
    [
      'filters win: failing filters',
      { attributes: { deployertype: 'mock' }, filters: [{ exact: { deployertype: 'x' } }] },
      false,
    ],
    ['empty filters fall back to attributes', { attributes: { deployertype: 'x' }, filters: [] }, false],
    [
      'filters list is all-of',
      { filters: [{ exact: { namespace: 'ls' } }, { exact: { name: 'other' } }] },
      false,
    ],
  ])('%s', (_name, trigger, want) => {
    expect(matches(trigger, event)).toBe(want);
  });

  it('reports the tri-state result', () => {
    expect(filterResult({}, event)).toBe('none');
    expect(filterResult({ filters: [{ all: [] }] }, event)).toBe('none');
  });
});
