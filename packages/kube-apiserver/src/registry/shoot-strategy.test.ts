import { operationRaisesGeneration, prepareShootUpdate } from './shoot-strategy.js';
import type { KubeObject, ResourceDef } from '../api/types.js';

const SHOOT = { group: 'core.gardener.cloud', kind: 'Shoot' } as ResourceDef;
const OTHER = { group: 'example.com', kind: 'Shoot' } as ResourceDef;

function shoot(state: string | undefined, annotations?: Record<string, string>, generation = 3): KubeObject {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: 's', namespace: 'n', generation, ...(annotations ? { annotations } : {}) },
    spec: {},
    ...(state ? { status: { lastOperation: { type: 'Reconcile', state } } } : {}),
  };
}

describe('operationRaisesGeneration (gardener-apiserver mustIncreaseGeneration)', () => {
  it.each([
    ['retry on a failed shoot', 'Failed', 'retry', true],
    ['retry on a shoot that did not fail', 'Succeeded', 'retry', false],
    ['reconcile on a shoot that did not fail', 'Succeeded', 'reconcile', true],
    ['reconcile on a processing shoot', 'Processing', 'reconcile', true],
    ['reconcile on a failed shoot', 'Failed', 'reconcile', false],
    ['another operation', 'Succeeded', 'maintain', false],
    ['no last operation yet', undefined, 'reconcile', false],
  ])('%s → %s', (_what, state, operation, want) => {
    expect(operationRaisesGeneration(shoot(state, { 'gardener.cloud/operation': operation }))).toBe(want);
  });
});

describe('prepareShootUpdate', () => {
  it('raises the generation and removes the annotation, keeping the others', () => {
    const prev = shoot('Failed', undefined, 3);
    const next = shoot('Failed', { 'gardener.cloud/operation': 'retry', keep: 'x' }, 3);
    const out = prepareShootUpdate(SHOOT, prev, next);
    expect(out.metadata.generation).toBe(4);
    expect(out.metadata.annotations).toEqual({ keep: 'x' });
    expect(next.metadata.annotations).toEqual({ 'gardener.cloud/operation': 'retry', keep: 'x' }); // not mutated
  });

  it('drops an annotation map that only held the operation', () => {
    const out = prepareShootUpdate(
      SHOOT,
      shoot('Succeeded'),
      shoot('Succeeded', { 'gardener.cloud/operation': 'reconcile' }),
    );
    expect(out.metadata.annotations).toBeUndefined();
    expect(out.metadata.generation).toBe(4);
  });

  it('leaves other kinds and other updates alone', () => {
    const next = shoot('Failed', { 'gardener.cloud/operation': 'retry' });
    expect(prepareShootUpdate(OTHER, shoot('Failed'), next)).toBe(next);
    const plain = shoot('Failed', { keep: 'x' });
    expect(prepareShootUpdate(SHOOT, shoot('Failed'), plain)).toBe(plain);
  });
});
