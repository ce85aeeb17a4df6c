/**
 * The embedded API server as strict as kube-apiserver for the built-in kinds (issue 19), through
 * kubectl under `npm start -- --no-functions`: invalid objects and immutable changes are refused
 * with kube-apiserver's words (Deployment selector ↔ labels and immutable selector, container
 * names, Pod spec updates, Secret type, `immutable: true`, Service clusterIP, DaemonSet and
 * ReplicationController selector ↔ labels), and created objects read back with a cluster's
 * defaults (Deployment strategy and pod template, Service cluster IP from 10.96.0.0/12 and no
 * generation, DaemonSet update strategy and template generation, ReplicationController selector
 * and labels from its template). The rules' table tests are the strategies' own
 * (packages/kube-apiserver/src/registry/*-strategy.test.ts).
 */
import { useLandscape, type CommandResult } from './support.js';

const landscape = useLandscape();

/** A kubectl command that must fail; its stderr. */
async function refused(args: string[], input?: string): Promise<string> {
  const r: CommandResult = await landscape().kubectl(args, input === undefined ? {} : { input });
  expect(r.code).not.toBe(0);
  return r.stderr;
}

const deployment = (name: string, selector: string, labels: string, container = 'web'): string => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: default}
spec:
  selector: {matchLabels: {${selector}}}
  template:
    metadata: {labels: {${labels}}}
    spec: {containers: [{name: ${container}, image: nginx}]}
`;

it('refuses a Deployment whose selector does not match its template labels, and a bad container name', async () => {
  expect(await refused(['apply', '-f', '-'], deployment('mismatch', 'app: a', 'app: b'))).toContain(
    'The Deployment "mismatch" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: `selector` does not match template `labels`',
  );
  expect(
    await refused(['apply', '-f', '-'], deployment('badname', 'app: a', 'app: a', 'Bad_Name')),
  ).toContain(
    'spec.template.spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters',
  );
});

it('creates a Deployment with a cluster defaults and refuses a change of its selector', async () => {
  const l = landscape();
  await l.kubectlOk(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2']);
  const d = await l.getJson(['deployment', 'web']);
  expect(d.spec).toMatchObject({
    progressDeadlineSeconds: 600,
    revisionHistoryLimit: 10,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: {
      spec: {
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
        containers: [
          {
            imagePullPolicy: 'IfNotPresent',
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
      },
    },
  });
  const patch =
    '{"spec":{"selector":{"matchLabels":{"app":"web","x":"y"}},"template":{"metadata":{"labels":{"app":"web","x":"y"}}}}}';
  expect(await refused(['patch', 'deployment', 'web', '--type=merge', '-p', patch])).toContain(
    'The Deployment "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web","x":"y"}}: field is immutable',
  );
});

it('lets a Pod change its image only', async () => {
  const l = landscape();
  await l.kubectlOk(['run', 'solo', '--image=nginx:1.27']);
  const stderr = await refused([
    'patch',
    'pod',
    'solo',
    '--type=merge',
    '-p',
    '{"spec":{"nodeName":"elsewhere"}}',
  ]);
  expect(stderr).toContain(
    'The Pod "solo" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`',
  );
  await l.kubectlOk(['set', 'image', 'pod/solo', 'solo=nginx:1.28']);
  expect((await l.getJson(['pod', 'solo'])).spec.containers[0].image).toBe('nginx:1.28');
});

it('keeps a Secret type and the data of immutable Secrets and ConfigMaps', async () => {
  const l = landscape();
  await l.kubectlOk(['create', 'secret', 'generic', 'plain', '--from-literal=a=b']);
  expect(
    await refused(['patch', 'secret', 'plain', '--type=merge', '-p', '{"type":"kubernetes.io/basic-auth"}']),
  ).toContain(
    'The Secret "plain" is invalid: type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
  );
  await l.create(
    'frozen.yaml',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen, namespace: default}\nimmutable: true\ndata: {a: "1"}\n',
  );
  expect(
    await refused(['patch', 'configmap', 'frozen', '--type=merge', '-p', '{"data":{"a":"2"}}']),
  ).toContain(
    'The ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
  );
});

it('gives a Service a cluster IP from the service CIDR, no generation, and keeps that IP', async () => {
  const l = landscape();
  await l.kubectlOk(['create', 'service', 'clusterip', 'front', '--tcp=80:8080']);
  const s = await l.getJson(['service', 'front']);
  expect(s.metadata.generation).toBeUndefined();
  expect(s.spec).toMatchObject({
    type: 'ClusterIP',
    sessionAffinity: 'None',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
  });
  const [a, b] = (s.spec.clusterIP as string).split('.').map(Number);
  expect(a).toBe(10);
  expect(b >= 96 && b < 112).toBe(true);
  expect(
    await refused(['patch', 'service', 'front', '--type=merge', '-p', '{"spec":{"clusterIP":"10.96.7.7"}}']),
  ).toContain(
    'The Service "front" is invalid: spec.clusterIPs[0]: Invalid value: ["10.96.7.7"]: may not change once set',
  );
});

const daemonSet = (name: string, selector: string, labels: string): string => `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ${name}, namespace: default}
spec:
  selector: {matchLabels: {${selector}}}
  template:
    metadata: {labels: {${labels}}}
    spec: {containers: [{name: agent, image: busybox:1.36}]}
`;

it('refuses a DaemonSet whose selector does not match its template labels, defaults one that does, keeps its selector', async () => {
  const l = landscape();
  expect(await refused(['apply', '-f', '-'], daemonSet('mismatch', 'app: a', 'app: b'))).toContain(
    'The DaemonSet "mismatch" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: `selector` does not match template `labels`',
  );
  await l.kubectlOk(['apply', '-f', '-'], { input: daemonSet('agent', 'app: agent', 'app: agent') });
  const ds = await l.getJson(['daemonset', 'agent']);
  expect(ds.metadata).toMatchObject({
    generation: 1,
    annotations: { 'deprecated.daemonset.template.generation': '1' },
  });
  expect(ds.spec).toMatchObject({
    revisionHistoryLimit: 10,
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    template: { spec: { restartPolicy: 'Always', containers: [{ imagePullPolicy: 'IfNotPresent' }] } },
  });
  expect(ds.status).toEqual({
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  });
  const patch =
    '{"spec":{"selector":{"matchLabels":{"app":"agent","x":"y"}},"template":{"metadata":{"labels":{"app":"agent","x":"y"}}}}}';
  expect(await refused(['patch', 'daemonset', 'agent', '--type=merge', '-p', patch])).toContain(
    'The DaemonSet "agent" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"agent","x":"y"}}: field is immutable',
  );
});

it('defaults a ReplicationController selector and labels from its template and refuses a selector that does not match', async () => {
  const l = landscape();
  const rc = (name: string, selector: string): string => `
apiVersion: v1
kind: ReplicationController
metadata: {name: ${name}, namespace: default}
spec:
  ${selector}
  template:
    metadata: {labels: {app: legacy}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
`;
  await l.create('rc.yaml', rc('legacy', 'replicas: 2'));
  const created = await l.getJson(['rc', 'legacy']);
  expect(created.metadata).toMatchObject({ labels: { app: 'legacy' }, generation: 1 });
  expect(created.spec).toMatchObject({ replicas: 2, selector: { app: 'legacy' } });
  expect(created.status).toEqual({ replicas: 0 });
  expect(await refused(['apply', '-f', '-'], rc('other', 'selector: {app: other}'))).toContain(
    'The ReplicationController "other" is invalid: spec.template.metadata.labels: Invalid value: {"app":"legacy"}: `selector` does not match template `labels`',
  );
});
