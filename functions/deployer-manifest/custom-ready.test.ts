import { objectProblem, requirementProblem } from './custom-ready.js';
import type { CustomReadinessRequirement } from './provider-config.js';

const obj = {
  status: {
    phase: 'Running',
    replicas: 3,
    conditions: [{ type: 'Ready', status: 'True' }],
    labels: { a: 'b' },
  },
};
const req = (
  jsonPath: string,
  operator: CustomReadinessRequirement['operator'],
  values: unknown[] = [],
): CustomReadinessRequirement => ({
  jsonPath,
  operator,
  values,
});

describe('requirementProblem (upstream semantics)', () => {
  it.each<[string, CustomReadinessRequirement, boolean]>([
    ['== matches', req('.status.phase', '==', ['Running']), true],
    ['= mismatch', req('.status.phase', '=', ['Pending']), false],
    ['numbers compare as JSON', req('.status.replicas', '==', [3]), true],
    ['objects compare deeply', req('.status.labels', '==', [{ a: 'b' }]), true],
    ['in', req('.status.phase', 'in', ['Pending', 'Running']), true],
    ['notin', req('.status.phase', 'notin', ['Pending', 'Running']), false],
    ['!=', req('.status.phase', '!=', ['Pending']), true],
    ['exists', req('.status.phase', 'exists'), true],
    ['exists, missing', req('.status.nope', 'exists'), false],
    ['! (does not exist), missing', req('.status.nope', '!'), true],
    ['! (does not exist), present', req('.status.phase', '!'), false],
    ['filter', req('.status.conditions[?(@.type=="Ready")].status', '==', ['True']), true],
    ['missing field with ==', req('.status.nope', '==', ['x']), false],
  ])('%s', (_name, r, ready) => {
    expect(requirementProblem(obj, r) === undefined).toBe(ready);
  });

  it('says which field', () => {
    expect(requirementProblem(obj, req('.status.nope', '==', ['x']))).toBe(
      'field with JSON path .status.nope does not exist',
    );
    expect(requirementProblem(obj, req('.status.phase', '==', ['x']))).toBe(
      'resource requirement is not fulfilled for field .status.phase',
    );
  });

  it('objectProblem: the first failing requirement', () => {
    const check = {
      name: 'c',
      disabled: false,
      resourceSelector: [],
      requirements: [req('.status.phase', 'exists'), req('.status.replicas', '==', [4])],
    };
    expect(objectProblem(obj, check)).toBe(
      'resource requirement is not fulfilled for field .status.replicas',
    );
    expect(objectProblem(obj, { ...check, requirements: [req('.status.phase', 'exists')] })).toBeUndefined();
  });
});
