/**
 * The ReplicationController strategy (./replicationcontroller-strategy.ts): SetDefaults_ReplicationController
 * (selector and labels from the template), validation with kube-apiserver's field paths and
 * wording, a mutable selector, the status subresource's rules and the `status.replicas` field
 * label — one table row per rule.
 */
import type { KubeObject } from '../api/types.js';
import { objectFieldValues, fieldLabels } from './fields.js';
import { createVia, statusUpdateVia, testDef, updateVia } from './strategy-test-support.js';

const RC = { ...testDef('', 'ReplicationController', true), version: 'v1' };

function rc(spec: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'nginx', namespace: 'default', ...(labels ? { labels } : {}) },
    spec: {
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
      },
      ...spec,
    },
  };
}

const template = (
  podSpec: Record<string, unknown> = {},
  labels: Record<string, string> = { app: 'nginx' },
): unknown => ({
  metadata: { labels },
  spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }], ...podSpec },
});

describe('ReplicationController create', () => {
  it('defaults selector, labels and replicas from the template, the pod template, and a zero status', () => {
    const out = createVia(RC, { ...rc(), status: { replicas: 3 } }) as KubeObject;
    expect(out.metadata.labels).toEqual({ app: 'nginx' });
    expect(out.status).toEqual({ replicas: 0 });
    expect(out.spec).toEqual({
      replicas: 1,
      selector: { app: 'nginx' },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.27',
              imagePullPolicy: 'IfNotPresent',
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

  it('keeps a given selector, labels and replicas', () => {
    const out = createVia(
      RC,
      rc(
        { replicas: 0, selector: { app: 'nginx' }, template: template({}, { app: 'nginx', v: '1' }) },
        { team: 'a' },
      ),
    ) as KubeObject;
    expect(out.metadata.labels).toEqual({ team: 'a' });
    expect(out.spec).toMatchObject({ replicas: 0, selector: { app: 'nginx' } });
  });

  it.each([
    [
      'selector does not match template labels',
      { selector: { app: 'other' } },
      'ReplicationController "nginx" is invalid: spec.template.metadata.labels: Invalid value: {"app":"nginx"}: `selector` does not match template `labels`',
    ],
    [
      'no selector and no template labels',
      { template: { spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
      'ReplicationController "nginx" is invalid: spec.selector: Required value',
    ],
    [
      'no template',
      { selector: { app: 'nginx' }, template: undefined },
      'ReplicationController "nginx" is invalid: spec.template: Required value',
    ],
    [
      'restartPolicy other than Always',
      { template: template({ restartPolicy: 'Never' }) },
      'ReplicationController "nginx" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ],
    [
      'activeDeadlineSeconds',
      { template: template({ activeDeadlineSeconds: 10 }) },
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported',
    ],
    [
      'negative replicas',
      { replicas: -1 },
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'negative minReadySeconds',
      { minReadySeconds: -5 },
      'spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0',
    ],
    [
      'a bad container name',
      {
        template: {
          metadata: { labels: { app: 'nginx' } },
          spec: { containers: [{ name: 'Web', image: 'x' }] },
        },
      },
      'spec.template.spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label',
    ],
  ])('refuses %s', (_what, spec, message) => {
    expect(createVia(RC, rc(spec))).toContain(message);
  });

  it('lists every error in upstream order', () => {
    expect(createVia(RC, rc({ minReadySeconds: -1, replicas: -1, template: undefined }))).toBe(
      'ReplicationController "nginx" is invalid: [spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0, spec.selector: Required value, spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template: Required value]',
    );
  });
});

describe('ReplicationController update', () => {
  const stored = (): KubeObject => ({ ...(createVia(RC, rc()) as KubeObject), status: { replicas: 1 } });

  it('lets the selector change with the template labels, and keeps the stored status', () => {
    const next = { ...rc({ selector: { app: 'v2' }, template: template({}, { app: 'v2' }) }), status: {} };
    expect(updateVia(RC, stored(), next)).toMatchObject({
      spec: { selector: { app: 'v2' } },
      status: { replicas: 1 },
    });
  });

  it('validates an update as a create', () => {
    expect(updateVia(RC, stored(), rc({ selector: { app: 'v2' } }))).toBe(
      'ReplicationController "nginx" is invalid: spec.template.metadata.labels: Invalid value: {"app":"nginx"}: `selector` does not match template `labels`',
    );
  });
});

describe('ReplicationController status', () => {
  const stored = (): KubeObject => createVia(RC, rc()) as KubeObject;

  it('keeps the stored spec and takes the status and metadata', () => {
    const incoming = { ...rc({ replicas: 5 }, { team: 'b' }), status: { replicas: 2, readyReplicas: 1 } };
    const out = statusUpdateVia(RC, stored(), incoming) as KubeObject;
    expect(out.spec).toEqual(stored().spec);
    expect(out.metadata.labels).toEqual({ team: 'b' });
    expect(out.status).toEqual({ replicas: 2, readyReplicas: 1 });
    expect((statusUpdateVia(RC, stored(), { ...rc(), status: {} }) as KubeObject).status).toEqual({
      replicas: 0,
    });
  });

  it.each([
    [
      { replicas: -1 },
      '[status.replicas: Invalid value: -1: must be greater than or equal to 0, ' +
        'status.fullyLabeledReplicas: Invalid value: 0: cannot be greater than status.replicas, ' +
        'status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas, ' +
        'status.availableReplicas: Invalid value: 0: cannot be greater than status.replicas]',
    ],
    [
      { replicas: 1, readyReplicas: 2 },
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
    ],
    [
      { replicas: 2, readyReplicas: 1, availableReplicas: 2 },
      'status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas',
    ],
  ])('refuses %j', (status, message) => {
    expect(statusUpdateVia(RC, stored(), { ...rc(), status })).toBe(
      `ReplicationController "nginx" is invalid: ${message}`,
    );
  });
});

describe('ReplicationController field labels', () => {
  it('selects on status.replicas, 0 when unset', () => {
    expect(fieldLabels(RC)).toEqual(['metadata.name', 'metadata.namespace', 'status.replicas']);
    expect(objectFieldValues(RC, rc())['status.replicas']).toBe('0');
    expect(objectFieldValues(RC, { ...rc(), status: { replicas: 3 } })['status.replicas']).toBe('3');
  });
});
