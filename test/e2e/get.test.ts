/**
 * kubectl api-resources and get (-o yaml, -o json, -l, --field-selector, -w, tables) against
 * `npm start`, with a fresh discovery cache.
 */
import { parse } from 'yaml';
import { configMap, deployItem, deployment, namespace } from './manifests.js';
import { ok, parseTable, scaledSeconds, useLandscape } from './support.js';

const landscape = useLandscape();

describe('kubectl api-resources', () => {
  let rows: Record<string, string>[];
  beforeAll(async () => {
    const r = await landscape().kubectl(['api-resources']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    rows = parseTable(r.stdout);
  });

  it.each([
    ['configmaps', 'cm', 'v1', 'true', 'ConfigMap'],
    ['namespaces', 'ns', 'v1', 'false', 'Namespace'],
    ['pods', 'po', 'v1', 'true', 'Pod'],
    ['secrets', '', 'v1', 'true', 'Secret'],
    ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment'],
    ['replicationcontrollers', 'rc', 'v1', 'true', 'ReplicationController'],
    ['daemonsets', 'ds', 'apps/v1', 'true', 'DaemonSet'],
    ['customresourcedefinitions', 'crd,crds', 'apiextensions.k8s.io/v1', 'false', 'CustomResourceDefinition'],
    ['leases', '', 'coordination.k8s.io/v1', 'true', 'Lease'],
    ['deployitems', 'di', 'landscaper.gardener.cloud/v1alpha1', 'true', 'DeployItem'],
    ['targets', 'tgt,tg', 'landscaper.gardener.cloud/v1alpha1', 'true', 'Target'],
    ['syncobjects', 'so', 'landscaper.gardener.cloud/v1alpha1', 'true', 'SyncObject'],
    ['contexts', 'ctx', 'landscaper.gardener.cloud/v1alpha1', 'true', 'Context'],
    ['managedseedsets', 'mss', 'seedmanagement.gardener.cloud/v1alpha1', 'true', 'ManagedSeedSet'],
    ['managedseeds', 'ms', 'seedmanagement.gardener.cloud/v1alpha1', 'true', 'ManagedSeed'],
    ['cloudprofiles', 'cprofile,cpfl', 'core.gardener.cloud/v1beta1', 'false', 'CloudProfile'],
    ['shoots', '', 'core.gardener.cloud/v1beta1', 'true', 'Shoot'],
    ['seeds', '', 'core.gardener.cloud/v1beta1', 'false', 'Seed'],
    ['machines', 'mc', 'machine.sapcloud.io/v1alpha1', 'true', 'Machine'],
  ])(
    'lists %s (short names "%s", %s, namespaced %s, kind %s)',
    (name, shortNames, apiVersion, namespaced, kind) => {
      expect(rows.find((r) => r.NAME === name && r.APIVERSION === apiVersion)).toEqual({
        NAME: name,
        SHORTNAMES: shortNames,
        APIVERSION: apiVersion,
        NAMESPACED: namespaced,
        KIND: kind,
      });
    },
  );

  it('filters by API group', async () => {
    const r = await landscape().kubectl([
      'api-resources',
      '--api-group=landscaper.gardener.cloud',
      '-o',
      'name',
    ]);
    ok(r);
    expect(r.stdout.trim().split('\n').sort()).toEqual([
      'contexts.landscaper.gardener.cloud',
      'deployitems.landscaper.gardener.cloud',
      'syncobjects.landscaper.gardener.cloud',
      'targets.landscaper.gardener.cloud',
    ]);
  });

  it('resolves every short name in get', async () => {
    const r = await landscape().kubectl([
      'get',
      'di,tgt,so,ctx,mss,ms,cprofile,mc,deploy,rc,ds,cm,ns',
      '-o',
      'name',
    ]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('namespace/default');
  });
});

describe('kubectl get', () => {
  beforeAll(async () => {
    const l = landscape();
    const files = [
      await l.manifest(
        'get-cms.yaml',
        [
          configMap('get-a', { k: 'a' }, { labels: { suite: 'get', tier: 'front' } }),
          configMap('get-b', { k: 'b', x: 'y' }, { labels: { suite: 'get', tier: 'back', env: 'prod' } }),
          configMap('get-c', { k: 'c' }, { labels: { suite: 'get', tier: 'back' } }),
        ].join('---\n'),
      ),
      await l.manifest('get-di.yaml', deployItem('get-di', { timeout: '5m' }, { labels: { suite: 'get' } })),
      await l.manifest('get-ns.yaml', namespace('get-ns', { suite: 'get' })),
      await l.manifest('get-deploy.yaml', deployment('get-web', { image: 'nginx:1.27', replicas: 2 })),
    ];
    for (const f of files) await l.kubectlOk(['create', '-f', f]);
  });

  it('-o yaml prints the stored object', async () => {
    const r = await landscape().kubectl(['get', 'cm', 'get-b', '-o', 'yaml']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const obj = parse(r.stdout);
    expect(obj).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      data: { k: 'b', x: 'y' },
      metadata: { name: 'get-b', namespace: 'default', labels: { tier: 'back', env: 'prod' } },
    });
    expect(obj.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(obj.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(obj.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('-o json prints a custom resource and a List of them', async () => {
    const one = await landscape().kubectl(['get', 'di', 'get-di', '-o', 'json']);
    expect(one).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(one.stdout)).toMatchObject({
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'DeployItem',
      metadata: { name: 'get-di', generation: 1 },
      spec: { type: 'landscaper.gardener.cloud/mock', timeout: '5m' },
    });
    const list = await landscape().kubectl(['get', 'cm', '-l', 'suite=get', '-o', 'json']);
    ok(list);
    const parsed = JSON.parse(list.stdout);
    expect(parsed).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(parsed.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      'get-a',
      'get-b',
      'get-c',
    ]);
  });

  it('-o jsonpath reads fields', async () => {
    const r = await landscape().kubectl([
      'get',
      'deploy',
      'get-web',
      '-o',
      'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}',
    ]);
    expect(r).toMatchObject({ code: 0, stdout: '2 nginx:1.27' });
  });

  it.each([
    ['tier=back', ['get-b', 'get-c']],
    ['tier==front', ['get-a']],
    ['tier!=back,suite=get', ['get-a']],
    ['tier in (front,back),env', ['get-b']],
    ['tier notin (front),suite=get', ['get-b', 'get-c']],
    ['suite=get,!env', ['get-a', 'get-c']],
    ['tier=nothing', []],
  ])('-l %s selects %j', async (selector, names) => {
    const r = await landscape().kubectl(['get', 'cm', '-l', selector, '-o', 'name']);
    ok(r);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(names.map((n) => `configmap/${n}`));
  });

  it('-l on a custom resource and a cluster-scoped kind', async () => {
    const di = await landscape().kubectl(['get', 'di', '-l', 'suite=get', '-o', 'name']);
    expect(di).toMatchObject({ code: 0, stdout: 'deployitem.landscaper.gardener.cloud/get-di\n' });
    const ns = await landscape().kubectl(['get', 'ns', '-l', 'suite=get', '-o', 'name']);
    expect(ns).toMatchObject({ code: 0, stdout: 'namespace/get-ns\n' });
  });

  it('--field-selector metadata.name', async () => {
    const r = await landscape().kubectl([
      'get',
      'cm',
      '--field-selector',
      'metadata.name=get-c',
      '-o',
      'name',
    ]);
    expect(r).toMatchObject({ code: 0, stdout: 'configmap/get-c\n' });
  });

  it('--all-namespaces lists across namespaces', async () => {
    const l = landscape();
    await l.kubectlOk([
      'create',
      '-f',
      await l.manifest(
        'get-other.yaml',
        configMap('get-other', { k: 'o' }, { namespace: 'get-ns', labels: { suite: 'get' } }),
      ),
    ]);
    const r = await l.kubectl([
      'get',
      'cm',
      '-A',
      '-l',
      'suite=get',
      '-o',
      'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}',
    ]);
    ok(r);
    expect(r.stdout.trim().split(' ').sort()).toEqual([
      'default/get-a',
      'default/get-b',
      'default/get-c',
      'get-ns/get-other',
    ]);
  });

  it('prints "No resources found" for an empty list', async () => {
    const r = await landscape().kubectl(['get', 'mss']);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: 'No resources found in default namespace.\n' });
  });
});

describe('kubectl get -w', () => {
  it('shows a ConfigMap created while it watches', async () => {
    const l = landscape();
    await l.kubectlOk([
      'create',
      '-f',
      await l.manifest('watch-0.yaml', configMap('watch-0', { a: '0' }, { labels: { suite: 'watch' } })),
    ]);
    const watch = l.kubectlInBackground(['get', 'cm', '-l', 'suite=watch', '-w']);
    try {
      await watch.waitFor(/^watch-0\s/m);
      await l.kubectlOk([
        'create',
        '-f',
        await l.manifest('watch-1.yaml', configMap('watch-1', { a: '1' }, { labels: { suite: 'watch' } })),
      ]);
      await watch.waitFor(/^watch-1\s/m);
      await l.kubectlOk(['create', '-f', await l.manifest('watch-x.yaml', configMap('watch-x', { a: 'x' }))]);
      await l.kubectlOk([
        'create',
        '-f',
        await l.manifest('watch-2.yaml', configMap('watch-2', { a: '2' }, { labels: { suite: 'watch' } })),
      ]);
      const out = await watch.waitFor(/^watch-2\s/m);
      expect(out).not.toContain('watch-x');
      expect(parseTable(out).map((r) => r.NAME)).toEqual(['watch-0', 'watch-1', 'watch-2']);
    } finally {
      await watch.stop();
    }
  });

  it('--output-watch-events shows ADDED, MODIFIED and DELETED of a custom resource', async () => {
    const l = landscape();
    const watch = l.kubectlInBackground([
      'get',
      'di',
      '--field-selector',
      'metadata.name=watch-di',
      '-w',
      '--output-watch-events',
    ]);
    try {
      await l.kubectlOk(['create', '-f', await l.manifest('watch-di.yaml', deployItem('watch-di'))]);
      await watch.waitFor(/^ADDED\s+watch-di\s/m);
      await l.kubectlOk(['label', 'di', 'watch-di', 'seen=yes']);
      await watch.waitFor(/^MODIFIED\s+watch-di\s/m);
      await l.kubectlOk(['delete', 'di', 'watch-di']);
      const out = await watch.waitFor(/^DELETED\s+watch-di\s/m);
      expect(parseTable(out).map((r) => r.EVENT)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    } finally {
      await watch.stop();
    }
  });
});

// Server bug: a GET/LIST with `Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...` is answered with
// the plain object or list, not a meta.k8s.io/v1 Table, so kubectl prints NAME and AGE only.
describe('kubectl get prints the server-side columns (Table)', () => {
  it('of a ConfigMap: NAME DATA AGE', async () => {
    const r = await landscape().kubectl(['get', 'cm', 'get-b']);
    ok(r);
    expect(parseTable(r.stdout)).toEqual([
      { NAME: 'get-b', DATA: '2', AGE: expect.stringMatching(/^\d+s$/) },
    ]);
  });

  it('of a Namespace: NAME STATUS AGE', async () => {
    const r = await landscape().kubectl(['get', 'ns', 'get-ns']);
    ok(r);
    expect(parseTable(r.stdout)).toEqual([
      { NAME: 'get-ns', STATUS: 'Active', AGE: expect.stringMatching(/^\d+s$/) },
    ]);
  });

  it('of a Deployment: NAME READY UP-TO-DATE AVAILABLE AGE (status simulated as kwok does)', async () => {
    // npm start simulates workloads: the status follows spec.replicas after a short delay
    ok(
      await landscape().kubectl([
        'wait',
        'deploy/get-web',
        '--for=jsonpath={.status.readyReplicas}=2',
        `--timeout=${scaledSeconds(20_000)}`,
      ]),
    );
    const r = await landscape().kubectl(['get', 'deploy', 'get-web']);
    ok(r);
    expect(r.stdout.split('\n')[0].split(/\s+/)).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(parseTable(r.stdout)[0]).toMatchObject({
      NAME: 'get-web',
      READY: '2/2',
      'UP-TO-DATE': '2',
      AVAILABLE: '2',
    });
  });

  it("of a DeployItem: the CRD's additionalPrinterColumns", async () => {
    const r = await landscape().kubectl(['get', 'di', 'get-di']);
    ok(r);
    expect(r.stdout.split('\n')[0].split(/\s+/)).toEqual(['NAME', 'TYPE', 'PHASE', 'EXPORTREF', 'AGE']);
    expect(parseTable(r.stdout)[0]).toMatchObject({
      NAME: 'get-di',
      TYPE: 'landscaper.gardener.cloud/mock',
      PHASE: '',
    });
  });
});
