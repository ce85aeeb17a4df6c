/**
 * kubectl apply (client-side, default validation: no --validate=false), create -f, replace -f
 * and the generator commands (create namespace|configmap|deployment) against `npm start`.
 */
import { parse } from 'yaml';
import { configMap, deployItem, deployment, managedSeedSet, namespace, seed, shoot } from './manifests.js';
import { outcome, useLandscape } from './support.js';

const landscape = useLandscape();

const jsonOf = (args: string[]): Promise<any> => landscape().getJson(args);

async function apply(file: string, text: string, extra: string[] = []): Promise<string> {
  const l = landscape();
  return (await l.kubectlOk(['apply', '-f', await l.manifest(file, text), ...extra])).stdout;
}

interface CustomCase {
  kind: string;
  resource: string;
  name: string;
  v1: string;
  v2: string;
  /** What v1 and v2 look like in the stored object. */
  check(obj: any, version: 1 | 2): void;
}

const customCases: CustomCase[] = [
  {
    kind: 'DeployItem',
    resource: 'deployitem.landscaper.gardener.cloud',
    name: 'apply-di',
    v1: deployItem(
      'apply-di',
      { timeout: '5m', updateOnChangeOnly: true },
      { labels: { stage: 'one', keep: 'yes' } },
    ),
    v2: deployItem(
      'apply-di',
      {
        timeout: '10m',
        config: { apiVersion: 'mock/v1', kind: 'ProviderConfiguration', phase: 'Succeeded' },
      },
      { labels: { keep: 'yes' } },
    ),
    check(obj, v) {
      expect(obj.spec.timeout).toBe(v === 1 ? '5m' : '10m');
      expect(obj.spec.updateOnChangeOnly).toBe(v === 1 ? true : undefined);
      expect(obj.spec.config).toEqual(
        v === 1 ? undefined : { apiVersion: 'mock/v1', kind: 'ProviderConfiguration', phase: 'Succeeded' },
      );
      expect(obj.metadata.labels).toEqual(v === 1 ? { stage: 'one', keep: 'yes' } : { keep: 'yes' });
    },
  },
  {
    kind: 'Shoot',
    resource: 'shoot.core.gardener.cloud',
    name: 'apply-shoot',
    v1: shoot('apply-shoot', { region: 'eu-1', purpose: 'evaluation' }),
    v2: shoot('apply-shoot', { region: 'eu-2', purpose: 'testing' }),
    check(obj, v) {
      expect(obj.spec).toMatchObject({
        region: v === 1 ? 'eu-1' : 'eu-2',
        purpose: v === 1 ? 'evaluation' : 'testing',
        provider: { type: 'local' },
      });
    },
  },
  {
    kind: 'Seed',
    resource: 'seed.core.gardener.cloud',
    name: 'apply-seed',
    v1: seed('apply-seed', { region: 'eu-1', labels: { a: 'b' } }),
    v2: seed('apply-seed', { region: 'eu-2' }),
    check(obj, v) {
      expect(obj.spec.provider).toEqual({ type: 'local', region: v === 1 ? 'eu-1' : 'eu-2' });
      expect(obj.metadata.labels).toEqual(v === 1 ? { a: 'b' } : undefined);
    },
  },
  {
    kind: 'ManagedSeedSet',
    resource: 'managedseedset.seedmanagement.gardener.cloud',
    name: 'apply-mss',
    v1: managedSeedSet('apply-mss', { replicas: 1 }),
    v2: managedSeedSet('apply-mss', { replicas: 3, region: 'eu-3' }),
    check(obj, v) {
      expect(obj.spec.replicas).toBe(v === 1 ? 1 : 3);
      expect(obj.spec.shootTemplate.spec.region).toBe(v === 1 ? 'local' : 'eu-3');
    },
  },
];

describe('kubectl apply of custom resources', () => {
  it.each(customCases)('creates and updates a $kind', async (c) => {
    expect(await apply(`${c.name}-v1.yaml`, c.v1)).toBe(`${c.resource}/${c.name} created\n`);
    const created = await jsonOf([c.resource, c.name]);
    c.check(created, 1);
    expect(created.metadata.generation).toBe(1);
    expect(
      JSON.parse(created.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']),
    ).toMatchObject({ kind: c.kind, metadata: { name: c.name } });

    expect(await apply(`${c.name}-v1.yaml`, c.v1)).toBe(`${c.resource}/${c.name} unchanged\n`);

    expect(await apply(`${c.name}-v2.yaml`, c.v2)).toBe(`${c.resource}/${c.name} configured\n`);
    const updated = await jsonOf([c.resource, c.name]);
    c.check(updated, 2);
    expect(updated.metadata.generation).toBe(2);
    expect(updated.metadata.uid).toBe(created.metadata.uid);
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );
  });

  it('lets the server validate (POST with fieldValidation=Strict), with no OpenAPI v2 fallback', async () => {
    const l = landscape();
    const r = await l.kubectlOk([
      'apply',
      '-f',
      await l.manifest('apply-verbose.yaml', deployItem('apply-verbose')),
      '-v=6',
    ]);
    expect(r.stderr).toMatch(
      /POST https:\/\/\S+\/apis\/landscaper\.gardener\.cloud\/v1alpha1\/namespaces\/default\/deployitems\?fieldManager=kubectl-client-side-apply&fieldValidation=Strict 201 Created/,
    );
    expect(r.stderr).not.toContain('/openapi/v2');
    expect(r.stdout).toBe('deployitem.landscaper.gardener.cloud/apply-verbose created\n');
  });
});

describe('kubectl apply of built-in kinds', () => {
  it('creates and updates a ConfigMap (changed, removed and added keys)', async () => {
    expect(await apply('apply-cm-v1.yaml', configMap('apply-cm', { a: '1', b: '2' }))).toBe(
      'configmap/apply-cm created\n',
    );
    expect((await jsonOf(['cm', 'apply-cm'])).data).toEqual({ a: '1', b: '2' });
    expect(await apply('apply-cm-v1.yaml', configMap('apply-cm', { a: '1', b: '2' }))).toBe(
      'configmap/apply-cm unchanged\n',
    );
    expect(await apply('apply-cm-v2.yaml', configMap('apply-cm', { a: '10', c: '3' }))).toBe(
      'configmap/apply-cm configured\n',
    );
    expect((await jsonOf(['cm', 'apply-cm'])).data).toEqual({ a: '10', c: '3' });
  });

  it('creates and updates a Deployment (strategic merge: image and env changed, a container removed)', async () => {
    const v1 = deployment('apply-web', {
      image: 'nginx:1.27',
      replicas: 2,
      sidecars: { proxy: 'envoy:1.30' },
    });
    expect(await apply('apply-web-v1.yaml', v1)).toBe('deployment.apps/apply-web created\n');
    const created = await jsonOf(['deploy', 'apply-web']);
    expect(created.spec.replicas).toBe(2);
    expect(
      created.spec.template.spec.containers.map(
        (c: { name: string; image: string }) => `${c.name}=${c.image}`,
      ),
    ).toEqual(['web=nginx:1.27', 'proxy=envoy:1.30']);

    const v2 = deployment('apply-web', { image: 'nginx:1.28', replicas: 2, env: { MODE: 'blue' } });
    expect(await apply('apply-web-v2.yaml', v2)).toBe('deployment.apps/apply-web configured\n');
    const updated = await jsonOf(['deploy', 'apply-web']);
    expect(updated.spec.template.spec.containers).toHaveLength(1);
    expect(updated.spec.template.spec.containers[0]).toMatchObject({
      name: 'web',
      image: 'nginx:1.28',
      env: [{ name: 'MODE', value: 'blue' }],
      ports: [{ containerPort: 8080, name: 'http' }],
    });
    expect(updated.metadata.generation).toBe(2);
  });
});

describe('kubectl create -f', () => {
  it('creates a namespace and objects in it from one file', async () => {
    const l = landscape();
    const file = await l.manifest(
      'create-ns.yaml',
      [
        namespace('create-ns'),
        configMap('in-ns', { k: 'v' }, { namespace: 'create-ns' }),
        deployItem('in-ns').replace('name: in-ns', 'name: in-ns\n  namespace: create-ns'),
      ].join('---\n'),
    );
    const r = await l.kubectlOk(['create', '-f', file]);
    expect(r.stdout).toBe(
      'namespace/create-ns created\nconfigmap/in-ns created\ndeployitem.landscaper.gardener.cloud/in-ns created\n',
    );
    expect((await jsonOf(['cm', 'in-ns', '-n', 'create-ns'])).data).toEqual({ k: 'v' });
    expect((await jsonOf(['di', 'in-ns', '-n', 'create-ns'])).metadata.namespace).toBe('create-ns');
    expect((await jsonOf(['ns', 'create-ns'])).status).toEqual({ phase: 'Active' });
  });
});

describe('kubectl replace -f', () => {
  it('replaces a custom resource read with get -o yaml and edited', async () => {
    const l = landscape();
    await l.kubectlOk([
      'create',
      '-f',
      await l.manifest('replace-di.yaml', deployItem('replace-di', { timeout: '5m' })),
    ]);
    const current = parse((await l.kubectlOk(['get', 'di', 'replace-di', '-o', 'yaml'])).stdout);
    current.spec.timeout = '20m';
    current.metadata.labels = { replaced: 'true' };
    const r = await l.kubectlOk([
      'replace',
      '-f',
      await l.manifest('replace-di-edited.json', JSON.stringify(current)),
    ]);
    expect(r.stdout).toBe('deployitem.landscaper.gardener.cloud/replace-di replaced\n');
    const after = await jsonOf(['di', 'replace-di']);
    expect(after).toMatchObject({
      spec: { timeout: '20m' },
      metadata: { labels: { replaced: 'true' }, generation: 2 },
    });
  });

  it('replaces a ConfigMap from a manifest without resourceVersion', async () => {
    const l = landscape();
    await l.kubectlOk([
      'create',
      '-f',
      await l.manifest('replace-cm.yaml', configMap('replace-cm', { a: '1', b: '2' })),
    ]);
    const r = await l.kubectlOk([
      'replace',
      '-f',
      await l.manifest('replace-cm-2.yaml', configMap('replace-cm', { c: '3' })),
    ]);
    expect(r.stdout).toBe('configmap/replace-cm replaced\n');
    expect((await jsonOf(['cm', 'replace-cm'])).data).toEqual({ c: '3' });
  });
});

describe('generator commands (kubectl sends protobuf)', () => {
  it('kubectl create namespace', async () => {
    const r = await landscape().kubectl(['create', 'namespace', 'gen-ns']);
    expect(outcome(r)).toEqual({ code: 0, stdout: 'namespace/gen-ns created\n', stderr: '' });
    expect((await jsonOf(['ns', 'gen-ns'])).status).toEqual({ phase: 'Active' });
  });

  it('kubectl create configmap --from-literal', async () => {
    const r = await landscape().kubectl([
      'create',
      'configmap',
      'gen-cm',
      '--from-literal=a=b',
      '--from-literal=c=d',
    ]);
    expect(outcome(r)).toEqual({ code: 0, stdout: 'configmap/gen-cm created\n', stderr: '' });
    expect((await jsonOf(['cm', 'gen-cm'])).data).toEqual({ a: 'b', c: 'd' });
  });

  it('kubectl create deployment', async () => {
    const r = await landscape().kubectl([
      'create',
      'deployment',
      'gen-web',
      '--image=nginx:1.27',
      '--replicas=2',
      '--port=8080',
    ]);
    expect(outcome(r)).toEqual({ code: 0, stdout: 'deployment.apps/gen-web created\n', stderr: '' });
    const obj = await jsonOf(['deploy', 'gen-web']);
    expect(obj.spec).toMatchObject({ replicas: 2, selector: { matchLabels: { app: 'gen-web' } } });
    expect(obj.spec.template.spec.containers).toMatchObject([
      { name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 8080 }] },
    ]);
  });
});
