/**
 * The Pod strategy (./pod-strategy.ts, ./pod-defaults.ts, ./pod-validation.ts): defaults, the
 * status on create, the pod spec rules and what an update may change — one table row per rule.
 */
import type { KubeObject } from '../api/types.js';
import { defaultPullPolicy } from './pod-defaults.js';
import { POD_UPDATE_FORBIDDEN, podQosClass } from './pod-strategy.js';
import { createVia, testDef, updateVia } from './strategy-test-support.js';

const POD = testDef('', 'Pod', true);

const pod = (spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27', ...container }], ...spec },
});

describe('Pod defaults', () => {
  it.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.27', 'IfNotPresent'],
    ['registry.local:5000/team/app', 'Always'],
    ['registry.local:5000/team/app:v1', 'IfNotPresent'],
    ['nginx@sha256:abc', 'IfNotPresent'],
  ])('imagePullPolicy of %s is %s', (image, policy) => {
    expect(defaultPullPolicy(image)).toBe(policy);
  });

  it('reads back as on a cluster, Pending with its QoS class', () => {
    const out = createVia(POD, pod()) as KubeObject;
    expect(out.spec).toMatchObject({
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
      enableServiceLinks: true,
      priority: 0,
      containers: [
        {
          imagePullPolicy: 'IfNotPresent',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          resources: {},
        },
      ],
    });
    expect(out.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('copies limits to missing requests, defaults probes and volume modes', () => {
    const out = createVia(
      POD,
      pod(
        { volumes: [{ name: 'cfg', configMap: { name: 'x' } }] },
        { resources: { limits: { cpu: '1', memory: '1Gi' } }, readinessProbe: { httpGet: { port: 80 } } },
      ),
    ) as KubeObject;
    expect(out.spec).toMatchObject({
      containers: [
        {
          resources: { requests: { cpu: '1', memory: '1Gi' } },
          readinessProbe: {
            httpGet: { port: 80, path: '/', scheme: 'HTTP' },
            timeoutSeconds: 1,
            periodSeconds: 10,
            successThreshold: 1,
            failureThreshold: 3,
          },
        },
      ],
      volumes: [{ name: 'cfg', configMap: { name: 'x', defaultMode: 420 } }],
    });
    expect(out.status).toMatchObject({ qosClass: 'Guaranteed' });
  });

  it.each([
    [{}, 'BestEffort'],
    [{ requests: { cpu: '100m' } }, 'Burstable'],
    [{ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } }, 'Guaranteed'],
    [{ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } }, 'Burstable'],
  ])('QoS of resources %j is %s', (resources, qos) => {
    expect(podQosClass({ containers: [{ name: 'c', resources }] })).toBe(qos);
  });
});

describe('Pod validation', () => {
  it.each([
    [
      'a container name that is no DNS-1123 label',
      pod({}, { name: 'Bad_Name' }),
      'Pod "p" is invalid: spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of',
    ],
    ['no containers', pod({ containers: [] }), 'spec.containers: Required value'],
    [
      'a container port of 0',
      pod({}, { ports: [{ containerPort: 0 }] }),
      'spec.containers[0].ports[0].containerPort: Required value',
    ],
    [
      'a host port out of range',
      pod({}, { ports: [{ containerPort: 80, hostPort: 70000 }] }),
      'spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    ],
    [
      'a duplicate port name',
      pod(
        {},
        {
          ports: [
            { containerPort: 80, name: 'web' },
            { containerPort: 81, name: 'web' },
          ],
        },
      ),
      'spec.containers[0].ports[1].name: Duplicate value: "web"',
    ],
    [
      'an unknown pull policy',
      pod({}, { imagePullPolicy: 'Sometimes' }),
      'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
    ],
    [
      'an unknown restart policy',
      pod({ restartPolicy: 'Sometimes' }),
      'spec.restartPolicy: Unsupported value: "Sometimes"',
    ],
    [
      'a volume name that is no label',
      pod({ volumes: [{ name: 'A', emptyDir: {} }] }),
      'spec.volumes[0].name: Invalid value: "A"',
    ],
    [
      'an init container named as a container',
      pod({ initContainers: [{ name: 'c', image: 'x' }] }),
      'spec.containers[0].name: Duplicate value: "c"',
    ],
  ])('refuses %s', (_what, obj, message) => {
    expect(createVia(POD, obj)).toContain(message);
  });
});

describe('Pod update', () => {
  const prev = createVia(
    POD,
    pod({ nodeName: 'node-a', tolerations: [{ key: 'a', operator: 'Exists' }] }),
  ) as KubeObject;

  it.each([
    ['spec.nodeName', pod({ nodeName: 'node-b', tolerations: [{ key: 'a', operator: 'Exists' }] })],
    [
      'an env var',
      pod(
        { nodeName: 'node-a', tolerations: [{ key: 'a', operator: 'Exists' }] },
        { env: [{ name: 'A', value: 'b' }] },
      ),
    ],
    [
      'a container port',
      pod(
        { nodeName: 'node-a', tolerations: [{ key: 'a', operator: 'Exists' }] },
        { ports: [{ containerPort: 81 }] },
      ),
    ],
  ])('refuses a change of %s with kube-apiserver words', (_what, next) => {
    expect(updateVia(POD, prev, next)).toContain(
      `Pod "p" is invalid: spec: Forbidden: ${POD_UPDATE_FORBIDDEN}`,
    );
  });

  it('allows images, a lower activeDeadlineSeconds and added tolerations', () => {
    const tolerations = [
      { key: 'a', operator: 'Exists' },
      { key: 'b', operator: 'Exists' },
    ];
    const next = pod({ nodeName: 'node-a', tolerations, activeDeadlineSeconds: 30 }, { image: 'nginx:1.28' });
    const out = updateVia(POD, prev, next) as KubeObject;
    expect(out.spec).toMatchObject({ activeDeadlineSeconds: 30, containers: [{ image: 'nginx:1.28' }] });
    expect(out.status).toEqual(prev.status);
    const higher = { ...next, spec: { ...(next.spec as object), activeDeadlineSeconds: 60 } };
    expect(updateVia(POD, out, higher)).toContain(
      'spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value',
    );
  });

  it('refuses removing a toleration', () => {
    expect(updateVia(POD, prev, pod({ nodeName: 'node-a' }))).toContain(
      'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    );
  });
});
