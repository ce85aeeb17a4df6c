import type { KubeObject } from '../api/types.js';
import {
  deploymentConditions,
  maxUnavailable,
  replicaSetOf,
  revisionOf,
  templateHash,
} from './deployment-util.js';

const obj = (annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { annotations },
});

const template = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
};

describe('templateHash (ComputeHash)', () => {
  it('is made of SafeEncodeString characters and ignores its own label and null members', () => {
    const h = templateHash(template);
    expect(h).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    const labelled = {
      ...template,
      metadata: { creationTimestamp: null, labels: { app: 'web', 'pod-template-hash': h } },
    };
    expect(templateHash(labelled as never)).toBe(h);
    expect(
      templateHash({ ...template, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } }),
    ).not.toBe(h);
  });

  it('matches a ReplicaSet to its Deployment by template (EqualIgnoreHash)', () => {
    const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: {}, spec: { template } } as KubeObject;
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {},
      spec: { template: { ...template, metadata: { labels: { app: 'web', 'pod-template-hash': 'x' } } } },
    } as KubeObject;
    expect(replicaSetOf(dep, rs)).toBe(true);
    expect(replicaSetOf(dep, { ...rs, spec: { template: { spec: {} } } })).toBe(false);
  });
});

it('reads revisions and maxUnavailable as the controller does', () => {
  expect(revisionOf(obj({ 'deployment.kubernetes.io/revision': '3' }))).toBe(3);
  expect(revisionOf(obj({}))).toBe(0);
  expect(maxUnavailable({}, 3)).toBe(0);
  expect(maxUnavailable({}, 8)).toBe(2);
  expect(
    maxUnavailable({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } } }, 3),
  ).toBe(1);
  expect(maxUnavailable({ strategy: { type: 'Recreate' } }, 8)).toBe(0);
});

describe('deploymentConditions', () => {
  const ctx = { rsName: 'web-abc', created: false, previous: [], now: '2026-01-01T00:00:00Z' };
  const summary = (cs: Record<string, unknown>[]): string[] =>
    cs.map((c) => [c.type, c.status].join('=') + '/' + String(c.reason));

  it('says a new ReplicaSet was created, then progressing, then available', () => {
    const created = deploymentConditions(
      {},
      3,
      { replicas: 0, updatedReplicas: 0, availableReplicas: 0 },
      { ...ctx, created: true },
    );
    expect(summary(created)).toEqual([
      'Available=False/MinimumReplicasUnavailable',
      'Progressing=True/NewReplicaSetCreated',
    ]);
    expect(created[1].message).toBe('Created new replica set "web-abc"');
    const progressing = deploymentConditions(
      {},
      3,
      { replicas: 3, updatedReplicas: 3, availableReplicas: 1 },
      ctx,
    );
    expect(summary(progressing)).toEqual([
      'Available=False/MinimumReplicasUnavailable',
      'Progressing=True/ReplicaSetUpdated',
    ]);
    const done = deploymentConditions({}, 3, { replicas: 3, updatedReplicas: 3, availableReplicas: 3 }, ctx);
    expect(summary(done)).toEqual([
      'Available=True/MinimumReplicasAvailable',
      'Progressing=True/NewReplicaSetAvailable',
    ]);
    expect(done[1].message).toBe('ReplicaSet "web-abc" has successfully progressed.');
  });

  it('keeps an unchanged condition as it was (no write when nothing changed)', () => {
    const first = deploymentConditions({}, 1, { replicas: 1, updatedReplicas: 1, availableReplicas: 1 }, ctx);
    const again = deploymentConditions(
      {},
      1,
      { replicas: 1, updatedReplicas: 1, availableReplicas: 1 },
      {
        ...ctx,
        previous: first,
        now: '2026-01-01T00:05:00Z',
      },
    );
    expect(again).toEqual(first);
  });
});
