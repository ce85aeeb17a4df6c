/**
 * kubectl patch (json, merge, strategic, --subresource=status) and scale against `npm start`.
 */
import { configMap, deployItem, deployment, managedSeedSet, readyCondition } from './manifests.js';
import { outcome, useLandscape } from './support.js';

const landscape = useLandscape();

const create = (file: string, text: string): Promise<unknown> => landscape().create(file, text);
const jsonOf = (args: string[]): Promise<any> => landscape().getJson(args);

describe('kubectl patch', () => {
  beforeAll(async () => {
    await create('patch-di.yaml', deployItem('patch-di', { timeout: '5m', updateOnChangeOnly: true }));
    await create('patch-cm.yaml', configMap('patch-cm', { a: '1', keep: 'k' }));
    await create(
      'patch-web.yaml',
      deployment('patch-web', { image: 'nginx:1.27', replicas: 2, sidecars: { proxy: 'envoy:1.30' } }),
    );
  });

  it('--type json replaces, adds and removes fields of a custom resource', async () => {
    const ops = [
      { op: 'replace', path: '/spec/timeout', value: '15m' },
      { op: 'add', path: '/metadata/labels', value: { patched: 'json' } },
      { op: 'remove', path: '/spec/updateOnChangeOnly' },
    ];
    const r = await landscape().kubectl([
      'patch',
      'di',
      'patch-di',
      '--type',
      'json',
      '-p',
      JSON.stringify(ops),
    ]);
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: 'deployitem.landscaper.gardener.cloud/patch-di patched\n',
      stderr: '',
    });
    const obj = await jsonOf(['di', 'patch-di']);
    expect(obj.spec).toEqual({ type: 'landscaper.gardener.cloud/mock', timeout: '15m' });
    expect(obj.metadata.labels).toEqual({ patched: 'json' });
    expect(obj.metadata.generation).toBe(2);
  });

  it('--type merge adds and deletes (null) ConfigMap keys', async () => {
    const r = await landscape().kubectl([
      'patch',
      'cm',
      'patch-cm',
      '--type',
      'merge',
      '-p',
      '{"data":{"a":null,"b":"2"},"metadata":{"annotations":{"note":"merged"}}}',
    ]);
    expect(outcome(r)).toEqual({ code: 0, stdout: 'configmap/patch-cm patched\n', stderr: '' });
    const obj = await jsonOf(['cm', 'patch-cm']);
    expect(obj.data).toEqual({ keep: 'k', b: '2' });
    expect(obj.metadata.annotations).toEqual({ note: 'merged' });
  });

  it('--type merge on a custom resource', async () => {
    await create('patch-mss.yaml', managedSeedSet('patch-mss', { replicas: 1 }));
    const r = await landscape().kubectl([
      'patch',
      'mss',
      'patch-mss',
      '--type',
      'merge',
      '-p',
      '{"spec":{"replicas":2,"revisionHistoryLimit":3}}',
    ]);
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: 'managedseedset.seedmanagement.gardener.cloud/patch-mss patched\n',
      stderr: '',
    });
    expect((await jsonOf(['mss', 'patch-mss'])).spec).toMatchObject({ replicas: 2, revisionHistoryLimit: 3 });
  });

  it('the default (strategic merge) patch merges containers by name', async () => {
    const r = await landscape().kubectl([
      'patch',
      'deploy',
      'patch-web',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.29"}]}}}}',
    ]);
    expect(outcome(r)).toEqual({ code: 0, stdout: 'deployment.apps/patch-web patched\n', stderr: '' });
    const containers = (await jsonOf(['deploy', 'patch-web'])).spec.template.spec.containers;
    expect(containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`)).toEqual([
      'web=nginx:1.29',
      'proxy=envoy:1.30',
    ]);
  });

  it('a patch that changes nothing is reported as "(no change)"', async () => {
    const r = await landscape().kubectl([
      'patch',
      'cm',
      'patch-cm',
      '--type',
      'merge',
      '-p',
      '{"data":{"keep":"k"}}',
    ]);
    expect(outcome(r)).toEqual({ code: 0, stdout: 'configmap/patch-cm patched (no change)\n', stderr: '' });
  });
});

describe('kubectl patch --subresource=status', () => {
  beforeAll(() => create('status-di.yaml', deployItem('status-di', { timeout: '5m' })));

  it('sets the status of a custom resource, and only the status', async () => {
    const status = { observedGeneration: 1, phase: 'Succeeded', conditions: [readyCondition('True')] };
    const r = await landscape().kubectl([
      'patch',
      'di',
      'status-di',
      '--subresource=status',
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { timeout: '1h' }, status }),
    ]);
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: 'deployitem.landscaper.gardener.cloud/status-di patched\n',
      stderr: '',
    });
    const obj = await jsonOf(['di', 'status-di']);
    expect(obj.status).toEqual(status);
    expect(obj.spec.timeout).toBe('5m');
    expect(obj.metadata.generation).toBe(1);
  });

  it('ignores status in a patch of the main resource', async () => {
    const r = await landscape().kubectl([
      'patch',
      'di',
      'status-di',
      '--type',
      'merge',
      '-p',
      '{"status":{"phase":"Failed"}}',
    ]);
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: 'deployitem.landscaper.gardener.cloud/status-di patched (no change)\n',
      stderr: '',
    });
    expect((await jsonOf(['di', 'status-di'])).status.phase).toBe('Succeeded');
  });

  it('sets the status of a Deployment (one the workload simulation leaves alone)', async () => {
    // without the annotation the simulation would set its own status (2/2 ready) over this one
    await create(
      'status-web.yaml',
      deployment('status-web', { image: 'nginx:1.27', replicas: 2, unsimulated: true }),
    );
    const r = await landscape().kubectl([
      'patch',
      'deploy',
      'status-web',
      '--subresource=status',
      '--type',
      'merge',
      '-p',
      '{"status":{"replicas":2,"readyReplicas":1,"availableReplicas":1,"updatedReplicas":2}}',
    ]);
    expect(outcome(r)).toEqual({ code: 0, stdout: 'deployment.apps/status-web patched\n', stderr: '' });
    expect((await jsonOf(['deploy', 'status-web'])).status).toMatchObject({
      replicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
      updatedReplicas: 2,
    });
  });
});

describe('kubectl scale', () => {
  it('scales a Deployment', async () => {
    await create('scale-web.yaml', deployment('scale-web', { image: 'nginx:1.27', replicas: 1 }));
    const r = await landscape().kubectl(['scale', 'deploy/scale-web', '--replicas=3']);
    expect(outcome(r)).toEqual({ code: 0, stdout: 'deployment.apps/scale-web scaled\n', stderr: '' });
    expect((await jsonOf(['deploy', 'scale-web'])).spec.replicas).toBe(3);
  });

  it('checks --current-replicas against the scale subresource', async () => {
    const r = await landscape().kubectl([
      'scale',
      'deploy/scale-web',
      '--current-replicas=5',
      '--replicas=1',
    ]);
    expect(outcome(r)).toEqual({ code: 1, stdout: '', stderr: 'error: Expected replicas to be 5, was 3\n' });
    expect((await jsonOf(['deploy', 'scale-web'])).spec.replicas).toBe(3);
  });

  it('scales a ManagedSeedSet through its scale subresource', async () => {
    await create('scale-mss.yaml', managedSeedSet('scale-mss', { replicas: 1 }));
    const r = await landscape().kubectl(['scale', 'mss', 'scale-mss', '--replicas=4']);
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: 'managedseedset.seedmanagement.gardener.cloud/scale-mss scaled\n',
      stderr: '',
    });
    expect((await jsonOf(['mss', 'scale-mss'])).spec.replicas).toBe(4);
    const scale = await landscape().kubectlOk([
      'get',
      '--raw',
      '/apis/seedmanagement.gardener.cloud/v1alpha1/namespaces/default/managedseedsets/scale-mss/scale',
    ]);
    expect(JSON.parse(scale.stdout)).toMatchObject({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'scale-mss', namespace: 'default' },
      spec: { replicas: 4 },
    });
  });
});
