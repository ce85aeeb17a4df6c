import type { DeployItem, Requirement, Target, TargetSelector } from '../api/landscaper.js';
import type { Responsibility, ResponsibilityInput } from './responsibility.js';
import {
  decideResponsibility,
  needsFullRead,
  requirementMatches,
  requirementProblems,
  responsibilityKeysFromMetadata,
  responsibilityKeysFromSpec,
  selectorMatches,
  targetMatchesSelectors,
  targetSelectorProblems,
} from './responsibility.js';

const TYPE = 'landscaper.gardener.cloud/kubernetes-manifest';
const TYPE_KEY = 'landscaper.gardener.cloud/deployer-type';
const TARGET_KEY = 'landscaper.gardener.cloud/deployer-target-name';

function target(labels: Record<string, string> = {}, annotations: Record<string, string> = {}): Target {
  return {
    metadata: { name: 'tgt', namespace: 'ns', labels, annotations },
    spec: { type: 'landscaper.gardener.cloud/kubernetes-cluster' },
  };
}

describe('responsibility keys', () => {
  it.each([
    ['both annotations', { [TYPE_KEY]: TYPE, [TARGET_KEY]: 'tgt' }, { type: TYPE, targetName: 'tgt' }],
    [
      "upstream's .noTargetName: no target",
      { [TYPE_KEY]: TYPE, [TARGET_KEY]: '.noTargetName' },
      { type: TYPE },
    ],
    [
      'empty target name (earlier versions): no target',
      { [TYPE_KEY]: TYPE, [TARGET_KEY]: '' },
      { type: TYPE },
    ],
    ['type missing', { [TARGET_KEY]: 'tgt' }, undefined],
    ['target name missing', { [TYPE_KEY]: TYPE }, undefined],
    ['no annotations', undefined, undefined],
  ])('%s', (_name, annotations, expected) => {
    const meta = annotations ? { annotations } : {};
    expect(responsibilityKeysFromMetadata(meta)).toEqual(expected);
    expect(needsFullRead(meta)).toBe(expected === undefined);
  });

  it.each<[string, DeployItem['spec'], unknown]>([
    ['with target', { type: TYPE, target: { name: 'tgt' } }, { type: TYPE, targetName: 'tgt' }],
    ['without target', { type: TYPE }, { type: TYPE }],
    ['empty target name', { type: TYPE, target: { name: '' } }, { type: TYPE }],
  ])('from spec: %s', (_name, spec, expected) => {
    expect(responsibilityKeysFromSpec({ spec })).toEqual(expected);
  });
});

describe('requirementMatches (apimachinery semantics)', () => {
  const set = { env: 'prod', tier: 'web', n: '5', s: 'abc' };
  it.each<[Requirement, boolean]>([
    [{ key: 'env', operator: '=', values: ['prod'] }, true],
    [{ key: 'env', operator: '==', values: ['prod'] }, true],
    [{ key: 'env', operator: '=', values: ['dev'] }, false],
    [{ key: 'missing', operator: '=', values: ['x'] }, false],
    [{ key: 'env', operator: '!=', values: ['dev'] }, true],
    [{ key: 'env', operator: '!=', values: ['prod'] }, false],
    [{ key: 'missing', operator: '!=', values: ['x'] }, true],
    [{ key: 'env', operator: 'in', values: ['dev', 'prod'] }, true],
    [{ key: 'env', operator: 'in', values: ['dev'] }, false],
    [{ key: 'missing', operator: 'in', values: ['dev'] }, false],
    [{ key: 'env', operator: 'notin', values: ['dev'] }, true],
    [{ key: 'env', operator: 'notin', values: ['prod'] }, false],
    [{ key: 'missing', operator: 'notin', values: ['prod'] }, true],
    [{ key: 'env', operator: 'exists' }, true],
    [{ key: 'missing', operator: 'exists' }, false],
    [{ key: 'env', operator: '!' }, false],
    [{ key: 'missing', operator: '!' }, true],
    [{ key: 'n', operator: 'gt', values: ['4'] }, true],
    [{ key: 'n', operator: 'gt', values: ['5'] }, false],
    [{ key: 'n', operator: 'lt', values: ['6'] }, true],
    [{ key: 'n', operator: 'lt', values: ['-1'] }, false],
    [{ key: 'n', operator: 'gt', values: ['+4'] }, true],
    [{ key: 's', operator: 'gt', values: ['1'] }, false],
    [{ key: 'missing', operator: 'lt', values: ['100'] }, false],
    // invalid requirements match nothing
    [{ key: 'n', operator: 'gt', values: ['x'] }, false],
    [{ key: 'n', operator: 'gt', values: ['9223372036854775808'] }, false],
    [{ key: 'env', operator: '=', values: ['prod', 'dev'] }, false],
    [{ key: 'env', operator: 'in', values: [] }, false],
    [{ key: 'missing', operator: 'notin' }, false],
    [{ key: 'env', operator: 'exists', values: ['prod'] }, false],
    [{ key: '', operator: '!' }, false],
  ])('%j → %s', (req, expected) => {
    expect(requirementMatches(req, set)).toBe(expected);
  });

  it.each<[Requirement, boolean]>([
    [{ key: 'a', operator: '!=', values: ['x'] }, true],
    [{ key: 'a', operator: '!' }, true],
    [{ key: 'a', operator: 'exists' }, false],
  ])('undefined set: %j → %s', (req, expected) => {
    expect(requirementMatches(req, undefined)).toBe(expected);
  });
});

describe('requirementProblems / targetSelectorProblems', () => {
  it.each<[Requirement, string[]]>([
    [{ key: 'a', operator: '=', values: ['x'] }, []],
    [{ key: '', operator: '=', values: ['x'] }, ['key must not be empty']],
    [{ key: 'a', operator: '=', values: [] }, ['operator =: exactly one value is required']],
    [{ key: 'a', operator: 'in' }, ['operator in: at least one value is required']],
    [{ key: 'a', operator: '!', values: ['x'] }, ['operator !: values must be empty']],
    [{ key: 'a', operator: 'lt', values: ['1.5'] }, ['operator lt: value "1.5" is not an integer']],
    [{ key: 'a', operator: 'like' as never, values: [] }, ['unknown operator "like"']],
  ])('%j → %j', (req, expected) => {
    expect(requirementProblems(req)).toEqual(expected);
  });

  it('lists every problem with its path', () => {
    const selectors: TargetSelector[] = [
      { targets: [{ name: '' }], labels: [{ key: 'a', operator: 'in' }] },
      { annotations: [{ key: '', operator: 'exists' }] },
    ];
    expect(targetSelectorProblems(selectors)).toEqual([
      'targetSelectors[0].targets[0]: name must not be empty',
      'targetSelectors[0].labels[0]: operator in: at least one value is required',
      'targetSelectors[1].annotations[0]: key must not be empty',
    ]);
    expect(targetSelectorProblems(undefined)).toEqual([]);
  });
});

describe('target selectors', () => {
  const tgt = target({ env: 'prod' }, { 'landscaper.gardener.cloud/environment': 'eu' });
  it.each<[string, TargetSelector, boolean]>([
    ['empty selector', {}, true],
    ['targets: name', { targets: [{ name: 'tgt' }] }, true],
    ['targets: other name', { targets: [{ name: 'other' }] }, false],
    ['targets: name + namespace', { targets: [{ name: 'tgt', namespace: 'ns' }] }, true],
    ['targets: other namespace', { targets: [{ name: 'tgt', namespace: 'other' }] }, false],
    ['targets: any of the list', { targets: [{ name: 'x' }, { name: 'tgt' }] }, true],
    [
      'annotations',
      { annotations: [{ key: 'landscaper.gardener.cloud/environment', operator: '=', values: ['eu'] }] },
      true,
    ],
    [
      'annotations mismatch',
      { annotations: [{ key: 'landscaper.gardener.cloud/environment', operator: '=', values: ['us'] }] },
      false,
    ],
    ['labels', { labels: [{ key: 'env', operator: 'in', values: ['prod'] }] }, true],
    [
      'AND: targets match, labels do not',
      { targets: [{ name: 'tgt' }], labels: [{ key: 'env', operator: '=', values: ['dev'] }] },
      false,
    ],
    [
      'AND: all parts match',
      {
        targets: [{ name: 'tgt' }],
        labels: [{ key: 'env', operator: 'exists' }],
        annotations: [{ key: 'landscaper.gardener.cloud/environment', operator: '!=', values: ['us'] }],
      },
      true,
    ],
    [
      'AND inside labels',
      {
        labels: [
          { key: 'env', operator: 'exists' },
          { key: 'tier', operator: 'exists' },
        ],
      },
      false,
    ],
  ])('%s → %s', (_name, selector, expected) => {
    expect(selectorMatches(selector, tgt)).toBe(expected);
  });

  it.each<[string, TargetSelector[] | undefined, boolean]>([
    ['no selectors', undefined, true],
    ['empty list', [], true],
    [
      'OR: second matches',
      [{ targets: [{ name: 'x' }] }, { labels: [{ key: 'env', operator: 'exists' }] }],
      true,
    ],
    ['OR: none matches', [{ targets: [{ name: 'x' }] }, { labels: [{ key: 'env', operator: '!' }] }], false],
  ])('%s → %s', (_name, selectors, expected) => {
    expect(targetMatchesSelectors(tgt, selectors)).toBe(expected);
  });
});

describe('decideResponsibility', () => {
  const onlyProd: TargetSelector[] = [{ labels: [{ key: 'env', operator: '=', values: ['prod'] }] }];
  it.each<[string, ResponsibilityInput, Responsibility]>([
    [
      'type mismatch (even without target read)',
      { keys: { type: 'other', targetName: 'tgt' }, deployerType: TYPE },
      { kind: 'NotResponsible', reason: 'TypeMismatch' },
    ],
    [
      'no target',
      { keys: { type: TYPE }, deployerType: TYPE, selectors: onlyProd },
      { kind: 'Responsible', targetMissing: false },
    ],
    [
      'target not read yet',
      { keys: { type: TYPE, targetName: 'tgt' }, deployerType: TYPE },
      { kind: 'FetchTarget', name: 'tgt' },
    ],
    [
      'target missing',
      {
        keys: { type: TYPE, targetName: 'tgt' },
        deployerType: TYPE,
        target: 'NotFound',
        selectors: onlyProd,
      },
      { kind: 'Responsible', targetMissing: true },
    ],
    [
      'no selectors',
      { keys: { type: TYPE, targetName: 'tgt' }, deployerType: TYPE, target: target() },
      { kind: 'Responsible', targetMissing: false },
    ],
    [
      'selector matches',
      {
        keys: { type: TYPE, targetName: 'tgt' },
        deployerType: TYPE,
        target: target({ env: 'prod' }),
        selectors: onlyProd,
      },
      { kind: 'Responsible', targetMissing: false },
    ],
    [
      'selector does not match',
      {
        keys: { type: TYPE, targetName: 'tgt' },
        deployerType: TYPE,
        target: target({ env: 'dev' }),
        selectors: onlyProd,
      },
      { kind: 'NotResponsible', reason: 'SelectorMismatch' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(decideResponsibility(input)).toEqual(expected);
  });
});
