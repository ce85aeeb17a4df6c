import {
  defaultNotReadyReason,
  intOrPercent,
  isRelevantForDefaultReadiness,
  readinessProblem,
} from './readiness.js';

const deployment = (
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
  generation = 2,
): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', generation },
  spec,
  status,
});
const withKind =
  (kind: string, apiVersion = 'apps/v1') =>
  (o: Record<string, unknown>): Record<string, unknown> => ({ ...o, kind, apiVersion });
const statefulSet = (
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
): Record<string, unknown> => withKind('StatefulSet')(deployment(spec, status));
const replicaSet = (
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
): Record<string, unknown> => withKind('ReplicaSet')(deployment(spec, status));
const rc = (spec: Record<string, unknown>, status: Record<string, unknown>): Record<string, unknown> =>
  withKind('ReplicationController', 'v1')(deployment(spec, status));
const daemonSet = (spec: Record<string, unknown>, status: Record<string, unknown>): Record<string, unknown> =>
  withKind('DaemonSet')(deployment(spec, status));
const pod = (conditions: unknown[]): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  status: { conditions },
});

describe('defaultNotReadyReason (upstream default readiness checks)', () => {
  it.each<[string, Record<string, unknown>, string | undefined]>([
    [
      'deployment ready',
      deployment({ replicas: 2 }, { observedGeneration: 2, updatedReplicas: 2, availableReplicas: 2 }),
      undefined,
    ],
    [
      'deployment: generation not observed',
      deployment({ replicas: 2 }, { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 2 }),
      'observed generation outdated (1/2)',
    ],
    ['deployment: no status yet', deployment({}, {}), 'observed generation outdated (0/2)'],
    [
      'deployment: replicas default to 1',
      deployment({}, { observedGeneration: 2, updatedReplicas: 1, availableReplicas: 0 }),
      'not enough ready replicas (0/1)',
    ],
    [
      'deployment: not all updated',
      deployment({ replicas: 3 }, { observedGeneration: 2, updatedReplicas: 2, availableReplicas: 3 }),
      'not enough ready replicas (3/3)',
    ],
    ['deployment scaled to zero', deployment({ replicas: 0 }, { observedGeneration: 2 }), undefined],
    [
      'statefulset ready',
      statefulSet({ replicas: 1 }, { observedGeneration: 2, updatedReplicas: 1, availableReplicas: 1 }),
      undefined,
    ],
    [
      'statefulset not available',
      statefulSet({ replicas: 2 }, { observedGeneration: 2, updatedReplicas: 2, availableReplicas: 1 }),
      'not enough ready replicas (1/2)',
    ],
    ['replicaset ready', replicaSet({ replicas: 2 }, { observedGeneration: 2, readyReplicas: 2 }), undefined],
    [
      'replicaset short',
      replicaSet({ replicas: 2 }, { observedGeneration: 2, readyReplicas: 1 }),
      'not enough ready replicas (1/2)',
    ],
    [
      'replicaset failure condition',
      replicaSet(
        { replicas: 1 },
        {
          observedGeneration: 2,
          readyReplicas: 1,
          conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota' }],
        },
      ),
      'condition "ReplicaFailure" has invalid status True (expected False) due to FailedCreate: quota',
    ],
    [
      'replicationcontroller short',
      rc({ replicas: 1 }, { observedGeneration: 2, readyReplicas: 0 }),
      'not enough ready replicas (0/1)',
    ],
    [
      'daemonset ready',
      daemonSet({}, { observedGeneration: 2, desiredNumberScheduled: 3, currentNumberScheduled: 3 }),
      undefined,
    ],
    [
      'daemonset short',
      daemonSet({}, { observedGeneration: 2, desiredNumberScheduled: 3, currentNumberScheduled: 2 }),
      'not enough ready replicas (2/3)',
    ],
    [
      'daemonset rolling update tolerates maxUnavailable',
      daemonSet(
        { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '50%' } } },
        { observedGeneration: 2, desiredNumberScheduled: 4, currentNumberScheduled: 2 },
      ),
      undefined,
    ],
    ['pod ready', pod([{ type: 'Ready', status: 'True' }]), undefined],
    ['pod completed', pod([{ type: 'Ready', status: 'False', reason: 'PodCompleted' }]), undefined],
    [
      'pod not ready',
      pod([{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'c' }]),
      'condition "Ready" has invalid status False (expected True) due to ContainersNotReady: c',
    ],
    ['pod without Ready', pod([]), 'condition "Ready" is missing'],
    ['other kinds need nothing', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, undefined],
    [
      'a Deployment of another group is no apps Deployment',
      { ...deployment({}, {}), apiVersion: 'example.com/v1' },
      undefined,
    ],
  ])('%s', (_name, obj, want) => {
    expect(defaultNotReadyReason(obj)).toBe(want);
  });
});

describe('helpers', () => {
  it.each([
    [1, 10, 1],
    ['25%', 10, 2],
    ['100%', 3, 3],
    ['x', 3, 0],
    [undefined, 3, 0],
  ])('intOrPercent(%j, %d) = %d', (v, total, want) => {
    expect(intOrPercent(v, total)).toBe(want);
  });

  it.each([
    ['v1', 'Pod', true],
    ['apps/v1', 'Deployment', true],
    ['apps/v1', 'DaemonSet', true],
    ['v1', 'ConfigMap', false],
    ['batch/v1', 'Job', false],
  ])('isRelevantForDefaultReadiness(%s, %s) = %s', (apiVersion, kind, want) => {
    expect(isRelevantForDefaultReadiness(apiVersion, kind)).toBe(want);
  });

  it('readinessProblem names the object; absent objects are not ready', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'default' };
    expect(readinessProblem(ref, undefined)).toBe('Deployment default/web is not ready: not found');
    expect(readinessProblem(ref, deployment({}, {}))).toBe(
      'Deployment default/web is not ready: observed generation outdated (0/2)',
    );
    expect(
      readinessProblem(
        { apiVersion: 'v1', kind: 'Namespace', name: 'n' },
        { apiVersion: 'v1', kind: 'Namespace' },
      ),
    ).toBeUndefined();
  });
});
