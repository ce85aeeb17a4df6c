/**
 * The objects a cluster makes by itself, through kubectl against `npm start --no-functions
 * --simulate-pods` (issue 19): a new namespace gets its `kubernetes.io/metadata.name` label, the
 * `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap (the landscape CA); there is a
 * `default/kubernetes` Service; a Service over ready simulated pods has an EndpointSlice with
 * ready endpoints and an Endpoints object with their addresses.
 */
import { readFileSync } from 'node:fs';
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
