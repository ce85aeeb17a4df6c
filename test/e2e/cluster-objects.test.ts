/**
 * The objects a cluster makes by itself, through kubectl against `npm start --no-functions
 * --simulate-pods` (issue 19): a new namespace gets its `kubernetes.io/metadata.name` label, the
 * `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap (the landscape CA); there is a
 * `default/kubernetes` Service; a Service over ready simulated pods has an EndpointSlice with
 * ready endpoints and an Endpoints object with their addresses. `kubectl cluster-info dump` lists
 * what it lists on a cluster (nodes; per namespace events, ReplicationControllers, Services,
 * DaemonSets, Deployments, ReplicaSets, Pods) and goes on past each container whose logs the
 * landscape cannot serve.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTable, until, useLandscape } from './support.js';

const landscape = useLandscape(['--no-functions', '--simulate-pods']);
const NS = 'objects-e2e';

describe('a cluster makes by itself', () => {
  it('a new namespace has its name label, default ServiceAccount and kube-root-ca.crt ConfigMap', async () => {
    const l = landscape();
    await l.kubectlOk(['create', 'namespace', NS]);
    const byLabel = await l.kubectlOk(['get', 'ns', '-l', `kubernetes.io/metadata.name=${NS}`, '-o', 'name']);
    expect(byLabel.stdout).toBe(`namespace/${NS}\n`);
    await until(
      'the default ServiceAccount',
      async () => (await l.kubectl(['get', 'sa', 'default', '-n', NS])).code === 0 || undefined,
    );
    const cm = await until('the kube-root-ca.crt ConfigMap', async () => {
      const r = await l.kubectl(['get', 'cm', 'kube-root-ca.crt', '-n', NS, '-o', 'json']);
      return r.code === 0 ? (JSON.parse(r.stdout) as { data: Record<string, string> }) : undefined;
    });
    const kubeconfig = readFileSync(l.kubeconfig(), 'utf8');
    const caData = /certificate-authority-data: (\S+)/.exec(kubeconfig)![1];
    expect(cm.data['ca.crt']).toBe(Buffer.from(caData, 'base64').toString('utf8'));
  });

  it('kubectl get svc kubernetes -n default', async () => {
    const r = await landscape().kubectlOk(['get', 'svc', 'kubernetes', '-n', 'default']);
    expect(parseTable(r.stdout)).toEqual([
      expect.objectContaining({
        NAME: 'kubernetes',
        TYPE: 'ClusterIP',
        'CLUSTER-IP': '10.96.0.1',
        'PORT(S)': '443/TCP',
      }),
    ]);
  });

  it('a Service with ready simulated pods has an EndpointSlice with ready endpoints, and Endpoints', async () => {
    const l = landscape();
    await l.kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=2', '-n', NS]);
    await l.kubectlOk(['expose', 'deployment', 'web', '--port=80', '--target-port=8080', '-n', NS]);
    const slice = await until('an EndpointSlice with two ready endpoints', async () => {
      const r = await l.kubectl([
        'get',
        'endpointslice',
        '-n',
        NS,
        '-l',
        'kubernetes.io/service-name=web',
        '-o',
        'json',
      ]);
      const items = r.code === 0 ? (JSON.parse(r.stdout) as { items: any[] }).items : [];
      const ready = (items[0]?.endpoints ?? []).filter((e: any) => e.conditions?.ready);
      return items.length === 1 && ready.length === 2 ? items[0] : undefined;
    });
    expect(slice.metadata.labels).toMatchObject({
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    expect(slice.addressType).toBe('IPv4');
    expect(slice.ports).toEqual([{ name: '', port: 8080, protocol: 'TCP' }]);
    const ep = await l.getJson(['endpoints', 'web', '-n', NS]);
    expect(ep.subsets[0].addresses.map((a: { ip: string }) => a.ip).sort()).toEqual(
      slice.endpoints.map((e: { addresses: string[] }) => e.addresses[0]).sort(),
    );
  });
});

/** The objects of `cluster-info dump` output (JSON documents at column 0) and its other lines. */
function dumpDocuments(text: string): { objects: any[]; lines: string[] } {
  const objects: any[] = [];
  const lines: string[] = [];
  let doc: string[] | undefined;
  for (const line of text.split('\n')) {
    if (doc) {
      doc.push(line);
      if (line === '}') {
        objects.push(JSON.parse(doc.join('\n')));
        doc = undefined;
      }
    } else if (line === '{') doc = [line];
    else if (line !== '') lines.push(line);
  }
  return { objects, lines };
}

describe('kubectl cluster-info dump', () => {
  const manifests = `
apiVersion: v1
kind: ReplicationController
metadata: {name: dumped-rc, namespace: default}
spec:
  template:
    metadata: {labels: {app: dumped-rc}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: dumped-ds, namespace: default}
spec:
  selector: {matchLabels: {app: dumped-ds}}
  template:
    metadata: {labels: {app: dumped-ds}}
    spec: {containers: [{name: agent, image: busybox:1.36}]}
`;

  it('lists the nodes and the kinds of each namespace, and goes on past the logs it cannot get', async () => {
    const l = landscape();
    await l.create('dumped.yaml', manifests);
    await l.kubectlOk(['run', 'dumped', '--image=nginx:1.27', '-n', 'default']);
    const r = await l.kubectlOk(['cluster-info', 'dump']);
    const { objects, lines } = dumpDocuments(r.stdout);
    const kinds = objects.map((o) => o.kind);
    // nodes once, then per namespace (kube-system, default) the seven lists
    const perNamespace = [
      'EventList',
      'ReplicationControllerList',
      'ServiceList',
      'DaemonSetList',
      'DeploymentList',
      'ReplicaSetList',
      'PodList',
    ];
    expect(kinds).toEqual(['NodeList', ...perNamespace, ...perNamespace]);
    const names = (kind: string): string[] =>
      objects
        .filter((o) => o.kind === kind)
        .flatMap((o) => o.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`));
    expect(names('ServiceList')).toContain('default/kubernetes');
    expect(names('ReplicationControllerList')).toEqual(['default/dumped-rc']);
    expect(names('DaemonSetList')).toEqual(['default/dumped-ds']);
    expect(names('PodList')).toContain('default/dumped');
    // kubectl reads a log error body only when it is text/plain: the 400 Status shows as "unknown"
    expect(lines).toEqual(
      expect.arrayContaining([
        '==== START logs for container dumped of pod default/dumped ====',
        'Request log error: the server rejected our request for an unknown reason (get pods dumped)',
        '==== END logs for container dumped of pod default/dumped ====',
      ]),
    );
  });

  it('writes one file per list and per pod with --output-directory', async () => {
    const l = landscape();
    const dir = join(l.stateDir, 'dump');
    const r = await l.kubectlOk([
      'cluster-info',
      'dump',
      '--namespaces',
      'default',
      '--output-directory',
      dir,
    ]);
    expect(r.stdout).toBe(`Cluster info dumped to ${dir}\n`);
    for (const file of ['nodes.json', 'default/replication-controllers.json', 'default/daemonsets.json'])
      expect([file, existsSync(join(dir, file))]).toEqual([file, true]);
    const rcs = JSON.parse(readFileSync(join(dir, 'default/replication-controllers.json'), 'utf8'));
    expect(rcs.items.map((i: any) => i.metadata.name)).toEqual(['dumped-rc']);
    expect(readFileSync(join(dir, 'default/dumped/logs.txt'), 'utf8')).toContain('Request log error:');
  });
});
