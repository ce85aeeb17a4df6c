/**
 * The apps strategies (./apps-strategy.ts): defaults of Deployment, ReplicaSet and StatefulSet,
 * their validation with kube-apiserver's field paths and wording, selector immutability and the
 * StatefulSet's locked spec fields — one table row per rule.
 */
import { StatusError } from '../api/errors.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { strategyFor } from './strategies.js';

const def = (kind: string): ResourceDef =>
  ({ group: 'apps', kind, subresources: { status: true } }) as unknown as ResourceDef;
const DEPLOYMENT = def('Deployment');
const STATEFULSET = def('StatefulSet');
const REPLICASET = def('ReplicaSet');

function workload(kind: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx' }] },
      },
      ...spec,
    },
  };
}

/** The created object (prepare + validate), or the 422 message. */
function create(d: ResourceDef, obj: KubeObject): KubeObject | string {
  const s = strategyFor(d);
  try {
    const out = s.prepareForCreate(d, obj);
    s.validateCreate(d, out);
    return out;
  } catch (err) {
    if (err instanceof StatusError && err.code === 422) return err.message;
    throw err;
  }
}

function update(d: ResourceDef, prev: KubeObject, next: KubeObject): KubeObject | string {
  const s = strategyFor(d);
  try {
    const out = s.prepareForUpdate(d, prev, next);
    s.validateUpdate(d, prev, out);
    return out;
  } catch (err) {
    if (err instanceof StatusError && err.code === 422) return err.message;
    throw err;
  }
}

const template = (container: Record<string, unknown>, podSpec: Record<string, unknown> = {}): unknown => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx', ...container }], ...podSpec },
});

describe('Deployment defaults', () => {
  it('reads back as on a cluster: strategy, limits, pod template defaults', () => {
    const out = create(DEPLOYMENT, workload('Deployment', { strategy: {} })) as KubeObject;
    expect(out.spec).toEqual({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx',
              imagePullPolicy: 'Always',
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
    });
  });

  it('keeps what is set and adds no rollingUpdate to Recreate', () => {
    const out = create(
      DEPLOYMENT,
      workload('Deployment', { replicas: 3, strategy: { type: 'Recreate' }, revisionHistoryLimit: 2 }),
    ) as KubeObject;
    expect(out.spec).toMatchObject({ replicas: 3, strategy: { type: 'Recreate' }, revisionHistoryLimit: 2 });
    expect((out.spec as { strategy: object }).strategy).not.toHaveProperty('rollingUpdate');
  });

  it('fills a partial rollingUpdate', () => {
    const out = create(DEPLOYMENT, workload('Deployment', { strategy: { rollingUpdate: { maxSurge: 1 } } }));
    expect((out as KubeObject).spec).toMatchObject({
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } },
    });
  });
});

describe('Deployment validation', () => {
  it.each([
    [
      'selector does not match template labels',
      { selector: { matchLabels: { app: 'other' } } },
      'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ],
    ['missing selector', { selector: undefined }, 'spec.selector: Required value'],
    [
      'empty selector',
      { selector: {} },
      'spec.selector: Invalid value: {}: empty selector is invalid for deployment',
    ],
    [
      'bad container name',
      { template: template({ name: 'Bad_Name' }) },
      `spec.template.spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,
    ],
    [
      'missing image',
      { template: template({ image: '' }) },
      'spec.template.spec.containers[0].image: Required value',
    ],
    [
      'container port out of range',
      { template: template({ ports: [{ containerPort: 70000 }] }) },
      'spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    ],
    [
      'bad port name',
      { template: template({ ports: [{ containerPort: 80, name: 'HTTP' }] }) },
      'spec.template.spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ],
    [
      'restartPolicy other than Always',
      { template: template({}, { restartPolicy: 'Never' }) },
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ],
    [
      'negative replicas',
      { replicas: -1 },
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'rollingUpdate with Recreate',
      { strategy: { type: 'Recreate', rollingUpdate: {} } },
      "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    ],
    [
      'maxUnavailable and maxSurge both 0',
      { strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: '0%' } } },
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
    ],
    [
      'progress deadline not above minReadySeconds',
      { minReadySeconds: 700 },
      'spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds',
    ],
    [
      'duplicate container names',
      {
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'a', image: 'x' },
              { name: 'a', image: 'y' },
            ],
          },
        },
      },
      'spec.template.spec.containers[1].name: Duplicate value: "a"',
    ],
    [
      'bad env name',
      { template: template({ env: [{ name: '1X', value: 'v' }] }) },
      'spec.template.spec.containers[0].env[0].name: Invalid value: "1X": a valid environment variable name',
    ],
  ])('refuses %s', (_what, spec, message) => {
    expect(create(DEPLOYMENT, workload('Deployment', spec))).toContain(message);
  });

  it('refuses a change of spec.selector on update, and allows the template to change', () => {
    const prev = create(DEPLOYMENT, workload('Deployment')) as KubeObject;
    const moved = workload('Deployment', {
      selector: { matchLabels: { app: 'web', tier: 'x' } },
      template: {
        metadata: { labels: { app: 'web', tier: 'x' } },
        spec: { containers: [{ name: 'web', image: 'nginx' }] },
      },
    });
    expect(update(DEPLOYMENT, prev, moved)).toBe(
      'Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: field is immutable',
    );
    const image = workload('Deployment', { template: template({ image: 'nginx:1.27' }) });
    expect(update(DEPLOYMENT, prev, image)).toMatchObject({
      spec: { template: { spec: { containers: [{ imagePullPolicy: 'IfNotPresent' }] } } },
    });
  });

  it('validates an update as a create (template labels)', () => {
    const prev = create(DEPLOYMENT, workload('Deployment')) as KubeObject;
    const next = workload('Deployment', {
      template: {
        metadata: { labels: { app: 'x' } },
        spec: { containers: [{ name: 'web', image: 'nginx' }] },
      },
    });
    expect(update(DEPLOYMENT, prev, next)).toContain('`selector` does not match template `labels`');
  });
});

describe('ReplicaSet', () => {
  it('defaults replicas and the template, and refuses a selector that does not match', () => {
    expect(create(REPLICASET, workload('ReplicaSet'))).toMatchObject({
      spec: { replicas: 1, template: { spec: { dnsPolicy: 'ClusterFirst' } } },
    });
    expect(create(REPLICASET, workload('ReplicaSet', { selector: { matchLabels: { a: 'b' } } }))).toContain(
      'ReplicaSet.apps "web" is invalid: spec.template.metadata.labels',
    );
  });
});

describe('StatefulSet', () => {
  it('defaults as a cluster does', () => {
    const out = create(STATEFULSET, workload('StatefulSet', { serviceName: 'web' })) as KubeObject;
    expect(out.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      template: { spec: { restartPolicy: 'Always' } },
    });
  });

  it.each([
    [
      'empty selector',
      { selector: {} },
      'spec.selector: Invalid value: {}: empty selector is not valid for statefulset.',
    ],
    [
      'bad podManagementPolicy',
      { podManagementPolicy: 'Random' },
      `spec.podManagementPolicy: Invalid value: "Random": must be 'OrderedReady' or 'Parallel'`,
    ],
    [
      'rollingUpdate with OnDelete',
      { updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } },
      "only allowed for updateStrategy 'RollingUpdate'",
    ],
    [
      'labels mismatch',
      { selector: { matchLabels: { app: 'x' } } },
      '`selector` does not match template `labels`',
    ],
  ])('refuses %s', (_what, spec, message) => {
    expect(create(STATEFULSET, workload('StatefulSet', spec))).toContain(message);
  });

  it('locks the spec fields kube-apiserver locks and lets replicas, template, updateStrategy change', () => {
    const prev = create(STATEFULSET, workload('StatefulSet', { serviceName: 'web' })) as KubeObject;
    expect(update(STATEFULSET, prev, workload('StatefulSet', { serviceName: 'other' }))).toBe(
      "StatefulSet.apps \"web\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    );
    const ok = workload('StatefulSet', {
      serviceName: 'web',
      replicas: 5,
      template: template({ image: 'nginx:2' }),
      updateStrategy: { type: 'OnDelete' },
    });
    expect(update(STATEFULSET, prev, ok)).toMatchObject({
      spec: { replicas: 5, updateStrategy: { type: 'OnDelete' } },
    });
  });
});
