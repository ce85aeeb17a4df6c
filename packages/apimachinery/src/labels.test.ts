import {
  goLabelSelector,
  isEmptyLabelSelector,
  labelSelectorAsSelector,
  labelSelectorRequirements,
  labelSelectorString,
  matchesLabelSelector,
  parseSelector,
  requirementsMatch,
  selectorString,
  SelectorParseError,
  type LabelRequirement,
} from './labels.js';
import type { LabelSelector } from './meta.js';

const sel: LabelSelector = {
  matchLabels: { app: 'web' },
  matchExpressions: [
    { key: 'tier', operator: 'In', values: ['front', 'back'] },
    { key: 'env', operator: 'NotIn', values: ['dev'] },
    { key: 'owner', operator: 'Exists' },
    { key: 'legacy', operator: 'DoesNotExist' },
  ],
};

describe('matchesLabelSelector', () => {
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
    expect(matchesLabelSelector(s as LabelSelector | undefined, labels)).toBe(want);
  });
});

describe('labelSelectorString', () => {
  it.each([
    [undefined, ''],
    [{}, ''],
    [{ matchLabels: { b: '2', a: '1' } }, 'a=1,b=2'],
    [sel, 'app=web,env notin (dev),!legacy,owner,tier in (back,front)'],
  ])('%j → %s', (s, want) => expect(labelSelectorString(s)).toBe(want));
});

describe('isEmptyLabelSelector', () => {
  it.each([
    [{}, true],
    [{ matchLabels: {}, matchExpressions: [] }, true],
    [{ matchLabels: { a: 'b' } }, false],
  ])('%j → %s', (s, want) => expect(isEmptyLabelSelector(s)).toBe(want));
});

describe("labelSelectorAsSelector (the scheduler's seed selectors)", () => {
  const rows: [string, LabelSelector, string][] = [
    ['empty selects everything', {}, ''],
    ['match labels sorted by key', { matchLabels: { b: '2', a: '1' } }, 'a=1,b=2'],
    [
      'expressions, values sorted, all sorted by key',
      {
        matchLabels: { m: 'x' },
        matchExpressions: [
          { key: 'z', operator: 'In', values: ['b', 'a'] },
          { key: 'c', operator: 'NotIn', values: ['q'] },
          { key: 'e', operator: 'Exists' },
          { key: 'd', operator: 'DoesNotExist' },
        ],
      },
      'c notin (q),!d,e,m=x,z in (a,b)',
    ],
  ];
  it.each(rows)('%s', (_name, selector, text) => {
    const converted = labelSelectorAsSelector(selector);
    expect(converted.ok && converted.text).toBe(text);
  });

  const errors: [string, LabelSelector, string][] = [
    [
      'unknown operator',
      { matchExpressions: [{ key: 'k', operator: 'Gt', values: ['1'] }] },
      '"Gt" is not a valid label selector operator',
    ],
    [
      'in without values',
      { matchExpressions: [{ key: 'k', operator: 'In' }] },
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      'exists with values',
      { matchExpressions: [{ key: 'k', operator: 'Exists', values: ['a', 'b'] }] },
      'values: Invalid value: []string{"a", "b"}: values set must be empty for exists and does not exist',
    ],
  ];
  it.each(errors)('%s', (_name, selector, message) => {
    expect(labelSelectorAsSelector(selector)).toEqual({ ok: false, message });
  });

  it("prints a selector as Go's %v", () => {
    expect(goLabelSelector({})).toBe('{map[] []}');
    expect(
      goLabelSelector({
        matchLabels: { b: '2', a: '1' },
        matchExpressions: [
          { key: 'k', operator: 'In', values: ['x', 'y'] },
          { key: 'e', operator: 'Exists' },
        ],
      }),
    ).toBe('{map[a:1 b:2] [{k In [x y]} {e Exists []}]}');
  });

  const matches: [string, LabelSelector, Record<string, string> | undefined, boolean][] = [
    ['equals', { matchLabels: { a: '1' } }, { a: '1' }, true],
    ['equals, other value', { matchLabels: { a: '1' } }, { a: '2' }, false],
    ['in', { matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '2'] }] }, { a: '2' }, true],
    ['in, missing', { matchExpressions: [{ key: 'a', operator: 'In', values: ['1'] }] }, {}, false],
    [
      'notin, missing',
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] },
      undefined,
      true,
    ],
    [
      'notin, listed',
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] },
      { a: '1' },
      false,
    ],
    ['exists', { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, { a: '' }, true],
    ['does not exist', { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, { a: '' }, false],
    ['empty selector', {}, undefined, true],
  ];
  it.each(matches)('matches: %s', (_name, selector, labels, expected) => {
    const converted = labelSelectorAsSelector(selector);
    expect(converted.ok && requirementsMatch(converted.requirements, labels)).toBe(expected);
  });
});

describe('parseSelector (labels.Parse)', () => {
  const req = (
    key: string,
    operator: LabelRequirement['operator'],
    values: string[] = [],
  ): LabelRequirement => ({
    key,
    operator,
    values,
  });
  const rows: [string, string | undefined, LabelRequirement[]][] = [
    ['undefined selects everything', undefined, []],
    ['blank selects everything', '  ', []],
    ['equals', 'a=b', [req('a', '=', ['b'])]],
    ['double equals', 'a==b', [req('a', '==', ['b'])]],
    ['not equals', 'a!=b', [req('a', '!=', ['b'])]],
    ['empty value', 'a=', [req('a', '=', [''])]],
    ['in', 'env in (prod, dev)', [req('env', 'in', ['prod', 'dev'])]],
    ['notin', 'env notin (dev)', [req('env', 'notin', ['dev'])]],
    ['exists', 'example.com/app', [req('example.com/app', 'exists')]],
    ['does not exist', '!app', [req('app', '!')]],
    ['greater than', 'n>1', [req('n', 'gt', ['1'])]],
    ['less than', 'n<5', [req('n', 'lt', ['5'])]],
    ['several', 'a=b, c in (x,y),!d', [req('a', '=', ['b']), req('c', 'in', ['x', 'y']), req('d', '!')]],
  ];
  it.each(rows)('%s', (_name, text, want) => {
    expect(parseSelector(text)).toEqual(want);
  });

  const errors: [string, string, string][] = [
    ['empty term', 'a=b,', `unable to parse requirement: found '', expected: identifier in selector "a=b,"`],
    ['bad key', '-a=b', 'unable to parse requirement: invalid label key "-a" in selector "-a=b"'],
    ['bad value', 'a=b!c', 'unable to parse requirement: invalid label value "b!c" in selector "a=b!c"'],
    [
      'gt needs an integer',
      'a>x',
      `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer in selector "a>x"`,
    ],
    ['no form', 'a b', `unable to parse requirement: couldn't parse the selector string "a b"`],
  ];
  it.each(errors)('refuses %s', (_name, text, message) => {
    expect(() => parseSelector(text)).toThrow(new SelectorParseError(message));
  });
});

describe('requirementsMatch and selectorString over parsed selectors', () => {
  const rows: [string, string, Record<string, string>, boolean][] = [
    ['equals', 'a=1', { a: '1' }, true],
    ['not equals holds without the key', 'a!=1', {}, true],
    ['not equals', 'a!=1', { a: '1' }, false],
    ['gt', 'n>1', { n: '2' }, true],
    ['gt, not an integer label', 'n>1', { n: 'x' }, false],
    ['lt', 'n<1', { n: '1' }, false],
    ['set and exists', 'a in (x,y),b', { a: 'y', b: '' }, true],
  ];
  it.each(rows)('%s', (_name, text, labels, want) => {
    expect(requirementsMatch(parseSelector(text), labels)).toBe(want);
  });

  it('prints as Selector.String(): sorted by key, set values sorted, operators as written', () => {
    expect(selectorString(parseSelector('z in (b,a),a==1,m!=2,!d,n>3,c'))).toBe(
      'a==1,c,!d,m!=2,n>3,z in (a,b)',
    );
  });

  it('refuses an unknown operator of an unchecked metav1.LabelSelector', () => {
    expect(() => labelSelectorRequirements({ matchExpressions: [{ key: 'k', operator: 'Gt' }] })).toThrow(
      '"Gt" is not a valid label selector operator',
    );
  });
});
