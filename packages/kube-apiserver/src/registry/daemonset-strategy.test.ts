/**
 * The DaemonSet strategy (./daemonset-strategy.ts): defaults, the template generation annotation,
 * validation with kube-apiserver's field paths and wording, the immutable selector and the status
 * subresource's rules — one table row per rule.
 */
import { StatusError } from '../api/errors.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { strategyFor } from './strategies.js';
import { createVia, statusUpdateVia, testDef, updateVia } from './strategy-test-support.js';

const DS: ResourceDef = { ...testDef('apps', 'DaemonSet', true), version: 'v1' };
const GENERATION = 'deprecated.daemonset.template.generation';

function ds(spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'kube-system', ...(annotations ? { annotations } : {}) },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: { containers: [{ name: 'agent', image: 'agent:1.0' }] },
      },
      ...spec,
    },
  };
}

const template = (
  podSpec: Record<string, unknown> = {},
  container: Record<string, unknown> = {},
): unknown => ({
  metadata: { labels: { app: 'agent' } },
  spec: { containers: [{ name: 'agent', image: 'agent:1.0', ...container }], ...podSpec },
});

describe('DaemonSet create', () => {
  it('reads back as on a cluster: update strategy, history limit, pod template defaults, template generation 1, zero status', () => {
    const out = createVia(DS, { ...ds(), status: { numberReady: 3 } }) as KubeObject;
    expect(out.metadata.annotations).toEqual({ [GENERATION]: '1' });
    expect(out.status).toEqual({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    });
    expect(out.spec).toEqual({
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: 'agent' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: {
          containers: [
            {
              name: 'agent',
              image: 'agent:1.0',
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

  it.each([
    ['OnDelete gets no rollingUpdate', { updateStrategy: { type: 'OnDelete' } }, { type: 'OnDelete' }],
    [
      'a partial rollingUpdate is filled',
      { updateStrategy: { rollingUpdate: { maxUnavailable: '10%' } } },
      { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 } },
    ],
    [
      'surge instead of unavailable',
      { updateStrategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } },
      { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
    ],
  ])('%s', (_what, spec, updateStrategy) => {
    expect((createVia(DS, ds(spec)) as KubeObject).spec).toMatchObject({ updateStrategy });
  });

  it.each([
    ['absent', undefined, '1'],
    ['0', '0', '1'],
    ['5 (kept: settable on create only)', '5', '5'],
  ])('template generation annotation %s → %s', (_what, given, stored) => {
    const out = createVia(DS, ds({}, given === undefined ? undefined : { [GENERATION]: given }));
    expect((out as KubeObject).metadata.annotations?.[GENERATION]).toBe(stored);
  });

  it('fails the conversion of a template generation that is not an integer (400)', () => {
    const s = strategyFor(DS);
    const call = (): unknown => s.prepareForCreate(DS, ds({}, { [GENERATION]: 'two' }));
    expect(call).toThrow(StatusError);
    expect(call).toThrow(
      'DaemonSet in version "v1" cannot be handled as a DaemonSet: strconv.ParseInt: parsing "two": invalid syntax',
    );
  });
});

describe('DaemonSet validation', () => {
  it.each([
    [
      'selector does not match template labels',
      { selector: { matchLabels: { app: 'other' } } },
      'DaemonSet.apps "agent" is invalid: spec.template.metadata.labels: Invalid value: {"app":"agent"}: `selector` does not match template `labels`',
    ],
    [
      'no selector (matches nothing)',
      { selector: undefined },
      'DaemonSet.apps "agent" is invalid: spec.template.metadata.labels: Invalid value: {"app":"agent"}: `selector` does not match template `labels`',
    ],
    [
      'empty selector',
      { selector: {} },
      'DaemonSet.apps "agent" is invalid: spec.selector: Invalid value: {}: empty selector is invalid for daemonset',
    ],
    [
      'restartPolicy other than Always',
      { template: template({ restartPolicy: 'OnFailure' }) },
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ],
    [
      'activeDeadlineSeconds',
      { template: template({ activeDeadlineSeconds: 30 }) },
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported',
    ],
    [
      'missing image',
      { template: template({}, { image: '' }) },
      'spec.template.spec.containers[0].image: Required value',
    ],
    [
      'maxSurge beside the default maxUnavailable',
      { updateStrategy: { rollingUpdate: { maxSurge: 1 } } },
      'DaemonSet.apps "agent" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero',
    ],
    [
      'maxUnavailable and maxSurge both 0',
      { updateStrategy: { rollingUpdate: { maxUnavailable: '0%', maxSurge: 0 } } },
      'DaemonSet.apps "agent" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ],
    [
      'maxUnavailable over 100%',
      { updateStrategy: { rollingUpdate: { maxUnavailable: '120%' } } },
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "120%": must not be greater than 100%',
    ],
    [
      'maxUnavailable not a percent',
      { updateStrategy: { rollingUpdate: { maxUnavailable: 'half' } } },
      `spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "half": a valid percent string must be a numeric string followed by an ending '%'`,
    ],
    [
      'negative maxUnavailable',
      { updateStrategy: { rollingUpdate: { maxUnavailable: -1 } } },
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'negative minReadySeconds',
      { minReadySeconds: -1 },
      'spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'negative revisionHistoryLimit',
      { revisionHistoryLimit: -2 },
      'spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0',
    ],
  ])('refuses %s', (_what, spec, message) => {
    expect(createVia(DS, ds(spec))).toContain(message);
  });

  it('accepts OnDelete with a rollingUpdate left in (unlike a StatefulSet)', () => {
    const out = createVia(DS, ds({ updateStrategy: { type: 'OnDelete', rollingUpdate: { maxSurge: 5 } } }));
    expect(typeof out).toBe('object');
  });
});

describe('DaemonSet update', () => {
  const stored = (): KubeObject => createVia(DS, ds()) as KubeObject;

  it('refuses a change of spec.selector', () => {
    const moved = ds({
      selector: { matchLabels: { app: 'agent', tier: 'x' } },
      template: {
        metadata: { labels: { app: 'agent', tier: 'x' } },
        spec: { containers: [{ name: 'agent', image: 'agent:1.0' }] },
      },
    });
    expect(updateVia(DS, stored(), moved)).toBe(
      'DaemonSet.apps "agent" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"agent","tier":"x"}}: field is immutable',
    );
  });

  it('raises the template generation when the template changes, keeps it otherwise, whatever the body says', () => {
    const prev = stored();
    const newImage = updateVia(
      DS,
      prev,
      ds({ template: template({}, { image: 'agent:2.0' }) }, { [GENERATION]: '9' }),
    );
    expect((newImage as KubeObject).metadata.annotations?.[GENERATION]).toBe('2');
    const newLimit = updateVia(DS, prev, ds({ revisionHistoryLimit: 3 }));
    expect((newLimit as KubeObject).metadata.annotations?.[GENERATION]).toBe('1');
    expect((newLimit as KubeObject).spec).toMatchObject({ revisionHistoryLimit: 3 });
  });

  it('keeps the stored status', () => {
    const prev = { ...stored(), status: { numberReady: 2 } };
    expect(updateVia(DS, prev, { ...ds(), status: { numberReady: 9 } })).toMatchObject({
      status: { numberReady: 2 },
    });
  });

  it('validates an update as a create', () => {
    expect(updateVia(DS, stored(), ds({ template: template({ restartPolicy: 'Never' }) }))).toContain(
      'spec.template.spec.restartPolicy: Unsupported value: "Never"',
    );
  });
});

describe('DaemonSet status', () => {
  const stored = (): KubeObject => ({
    ...(createVia(DS, ds()) as KubeObject),
    status: { collisionCount: 2 },
  });

  it('keeps the stored spec and template generation, takes the status and the other metadata', () => {
    const incoming = {
      ...ds({ revisionHistoryLimit: 1 }, { [GENERATION]: '7', team: 'a' }),
      status: { desiredNumberScheduled: 3, numberReady: 3, collisionCount: 2 },
    };
    const out = statusUpdateVia(DS, stored(), incoming) as KubeObject;
    expect(out.spec).toEqual(stored().spec);
    expect(out.metadata.annotations).toEqual({ [GENERATION]: '1', team: 'a' });
    expect(out.status).toEqual({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 3,
      numberReady: 3,
      collisionCount: 2,
    });
  });

  it.each([
    [
      { numberReady: -1, collisionCount: 2 },
      'status.numberReady: Invalid value: -1: must be greater than or equal to 0',
    ],
    [{ collisionCount: 1 }, 'status.collisionCount: Invalid value: 1: cannot be decremented'],
    [{}, 'status.collisionCount: Invalid value: 0: cannot be decremented'],
  ])('refuses %j', (status, message) => {
    expect(statusUpdateVia(DS, stored(), { ...ds(), status })).toBe(
      `DaemonSet.apps "agent" is invalid: ${message}`,
    );
  });
});
