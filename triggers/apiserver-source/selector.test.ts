import { isEmptySelector, matchesSelector, selectorString } from './selector.js';
import type { LabelSelector } from './types.js';

const sel: LabelSelector = {
  matchLabels: { app: 'web' },
  matchExpressions: [
    { key: 'tier', operator: 'In', values: ['front', 'back'] },
    { key: 'env', operator: 'NotIn', values: ['dev'] },
    { key: 'owner', operator: 'Exists' },
    { key: 'legacy', operator: 'DoesNotExist' },
  ],
};

describe('matchesSelector', () => {
  it.each([
    ['absent selector matches all', undefined, {}, true],
    ['empty selector matches all', {}, { a: 'b' }, true],
    ['all terms hold', sel, { app: 'web', tier: 'front', owner: 'me' }, true],
    ['matchLabels differs', sel, { app: 'db', tier: 'front', owner: 'me' }, false],
    ['In fails without the key', sel, { app: 'web', owner: 'me' }, false],
    ['NotIn fails on a listed value', sel, { app: 'web', tier: 'back', env: 'dev', owner: 'me' }, false],
    [
      'NotIn holds without the key',
      { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] },
      {},
      true,
    ],
    ['Exists fails without the key', sel, { app: 'web', tier: 'front' }, false],
    ['DoesNotExist fails with the key', sel, { app: 'web', tier: 'front', owner: 'me', legacy: '' }, false],
    ['no labels at all', { matchLabels: { a: 'b' } }, undefined, false],
  ] as const)('%s', (_n, s, labels, want) => {
    expect(matchesSelector(s as LabelSelector | undefined, labels)).toBe(want);
  });
});

describe('selectorString', () => {
  it.each([
    [undefined, ''],
    [{}, ''],
    [{ matchLabels: { b: '2', a: '1' } }, 'a=1,b=2'],
    [sel, 'app=web,tier in (back,front),env notin (dev),owner,!legacy'],
  ])('%j → %s', (s, want) => expect(selectorString(s)).toBe(want));
});

describe('isEmptySelector', () => {
  it.each([
    [{}, true],
    [{ matchLabels: {}, matchExpressions: [] }, true],
    [{ matchLabels: { a: 'b' } }, false],
  ])('%j → %s', (s, want) => expect(isEmptySelector(s)).toBe(want));
});
