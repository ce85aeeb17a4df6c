import { isQualifiedName, isValidLabelValue } from './validation.js';

describe('isQualifiedName (label keys)', () => {
  it.each<[string, boolean]>([
    ['app', true],
    ['gardener.cloud/role', true],
    ['a_b.c-d', true],
    ['A1', true],
    ['', false],
    ['-a', false],
    ['a-', false],
    ['Example.com/app', false],
    ['/app', false],
    ['a/b/c', false],
    ['x'.repeat(63), true],
    ['x'.repeat(64), false],
    [`${'a'.repeat(253)}/x`, true],
    [`${'a'.repeat(254)}/x`, false],
  ])('%s → %s', (key, want) => {
    expect(isQualifiedName(key)).toBe(want);
  });
});

describe('isValidLabelValue', () => {
  it.each<[string, boolean]>([
    ['', true],
    ['web', true],
    ['v1.2_3-4', true],
    ['-x', false],
    ['x.', false],
    ['a b', false],
    ['x'.repeat(63), true],
    ['x'.repeat(64), false],
  ])('%j → %s', (value, want) => {
    expect(isValidLabelValue(value)).toBe(want);
  });
});
