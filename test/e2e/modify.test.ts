/**
 * kubectl patch (json, merge, strategic, --subresource=status), scale, delete (with finalizers)
 * and wait against `npm start`.
 */
import { configMap, deployItem, deployment, managedSeedSet } from './manifests.js';
import { outcome, useLandscape } from './support.js';

const landscape = useLandscape();

/** What kubectl -v=6 logs once its watch is established (so a change after it is seen as a change). */
const WATCHING = /GET https:\/\/\S+watch=true\S* 200 OK/;

async function create(file: string, text: string): Promise<void> {
  const l = landscape();
  await l.kubectlOk(['create', '-f', await l.manifest(file, text)]);
}

async function jsonOf(args: string[]): Promise<any> {
  return JSON.parse((await landscape().kubectlOk(['get', ...args, '-o', 'json'])).stdout);
}

function readyCondition(status: 'True' | 'False'): Record<string, string> {
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    type: 'Ready',
    status,
    reason: status === 'True' ? 'Done' : 'Pending',
    message: 'set by the e2e test',
    lastTransitionTime: at,
    lastUpdateTime: at,
  };
}

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

  it('sets the status of a Deployment', async () => {
    await create('status-web.yaml', deployment('status-web', { image: 'nginx:1.27', replicas: 2 }));
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

describe('kubectl delete', () => {
  it('deletes by name, by file and by label', async () => {
    const l = landscape();
    await create(
      'del.yaml',
      [
        configMap('del-1', { a: '1' }),
        configMap('del-2', { a: '2' }, { labels: { suite: 'del' } }),
        configMap('del-3', { a: '3' }, { labels: { suite: 'del' } }),
      ].join('---\n'),
    );
    const di = await l.manifest('del-di.yaml', deployItem('del-di'));
    await l.kubectlOk(['create', '-f', di]);

    expect(outcome(await l.kubectl(['delete', 'cm', 'del-1']))).toEqual({
      code: 0,
      stdout: 'configmap "del-1" deleted\n',
      stderr: '',
    });
    expect(outcome(await l.kubectl(['get', 'cm', 'del-1']))).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error from server (NotFound): configmaps "del-1" not found\n',
    });
    expect(outcome(await l.kubectl(['delete', '-f', di]))).toEqual({
      code: 0,
      stdout: 'deployitem.landscaper.gardener.cloud "del-di" deleted\n',
      stderr: '',
    });
    expect(outcome(await l.kubectl(['delete', 'cm', '-l', 'suite=del']))).toEqual({
      code: 0,
      stdout: 'configmap "del-2" deleted\nconfigmap "del-3" deleted\n',
      stderr: '',
    });
    expect(outcome(await l.kubectl(['get', 'cm', '-l', 'suite=del']))).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No resources found in default namespace.\n',
    });
  });

  it('reports NotFound, or nothing with --ignore-not-found', async () => {
    const l = landscape();
    expect(outcome(await l.kubectl(['delete', 'di', 'never-was']))).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error from server (NotFound): deployitems.landscaper.gardener.cloud "never-was" not found\n',
    });
    expect(outcome(await l.kubectl(['delete', 'di', 'never-was', '--ignore-not-found']))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('an object with a finalizer stays (deletionTimestamp set) until a patch removes the finalizer', async () => {
    const l = landscape();
    await create('fin-cm.yaml', configMap('fin-cm', { a: '1' }, { finalizers: ['e2e.test/hold'] }));
    expect(outcome(await l.kubectl(['delete', 'cm', 'fin-cm', '--wait=false']))).toEqual({
      code: 0,
      stdout: 'configmap "fin-cm" deleted\n',
      stderr: '',
    });
    const held = await jsonOf(['cm', 'fin-cm']);
    expect(held.metadata.finalizers).toEqual(['e2e.test/hold']);
    expect(held.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(held.metadata.deletionGracePeriodSeconds).toBe(0);

    const waiting = l.kubectlInBackground(['wait', 'cm/fin-cm', '--for=delete', '--timeout=20s', '-v=6']);
    try {
      await waiting.waitFor(WATCHING, { stream: 'stderr' });
      const r = await l.kubectl([
        'patch',
        'cm',
        'fin-cm',
        '--type',
        'json',
        '-p',
        '[{"op":"remove","path":"/metadata/finalizers"}]',
      ]);
      expect(outcome(r)).toEqual({ code: 0, stdout: 'configmap/fin-cm patched\n', stderr: '' });
      expect(await waiting.exit()).toMatchObject({ code: 0, stdout: 'configmap/fin-cm condition met\n' });
    } finally {
      await waiting.stop();
    }
    expect(outcome(await l.kubectl(['get', 'cm', 'fin-cm']))).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error from server (NotFound): configmaps "fin-cm" not found\n',
    });
  });

  it('kubectl delete (waiting, the default) returns once the finalizer of a custom resource is removed', async () => {
    const l = landscape();
    await create(
      'fin-di.yaml',
      deployItem('fin-di', {}, { finalizers: ['landscaper.gardener.cloud/finalizer'] }),
    );
    const deleting = l.kubectlInBackground(['delete', 'di', 'fin-di', '--timeout=20s']);
    try {
      await deleting.waitFor(/"fin-di" deleted/);
      await new Promise((r) => setTimeout(r, 500));
      expect(deleting.running()).toBe(true);
      expect((await jsonOf(['di', 'fin-di'])).metadata.deletionTimestamp).toBeDefined();
      await l.kubectlOk([
        'patch',
        'di',
        'fin-di',
        '--type',
        'merge',
        '-p',
        '{"metadata":{"finalizers":null}}',
      ]);
      expect(outcome(await deleting.exit())).toEqual({
        code: 0,
        stdout: 'deployitem.landscaper.gardener.cloud "fin-di" deleted\n',
        stderr: '',
      });
    } finally {
      await deleting.stop();
    }
    expect((await l.kubectl(['get', 'di', 'fin-di'])).stderr).toBe(
      'Error from server (NotFound): deployitems.landscaper.gardener.cloud "fin-di" not found\n',
    );
  });
});

describe('kubectl wait', () => {
  beforeAll(() => create('wait-di.yaml', deployItem('wait-di')));

  it('--for=condition=Ready returns when a status patch sets the condition', async () => {
    const l = landscape();
    const waiting = l.kubectlInBackground([
      'wait',
      'di/wait-di',
      '--for=condition=Ready',
      '--timeout=20s',
      '-v=6',
    ]);
    try {
      await waiting.waitFor(WATCHING, { stream: 'stderr' });
      await l.kubectlOk([
        'patch',
        'di',
        'wait-di',
        '--subresource=status',
        '--type',
        'merge',
        '-p',
        JSON.stringify({ status: { observedGeneration: 1, conditions: [readyCondition('False')] } }),
      ]);
      await new Promise((r) => setTimeout(r, 300));
      expect(waiting.running()).toBe(true);
      await l.kubectlOk([
        'patch',
        'di',
        'wait-di',
        '--subresource=status',
        '--type',
        'merge',
        '-p',
        JSON.stringify({
          status: { observedGeneration: 1, phase: 'Succeeded', conditions: [readyCondition('True')] },
        }),
      ]);
      expect(await waiting.exit()).toMatchObject({
        code: 0,
        stdout: 'deployitem.landscaper.gardener.cloud/wait-di condition met\n',
      });
    } finally {
      await waiting.stop();
    }
  });

  it('--for=jsonpath on a field the status patch set', async () => {
    const r = await landscape().kubectl([
      'wait',
      'di/wait-di',
      '--for=jsonpath={.status.phase}=Succeeded',
      '--timeout=5s',
    ]);
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: 'deployitem.landscaper.gardener.cloud/wait-di condition met\n',
      stderr: '',
    });
  });

  it('times out on a condition that never comes', async () => {
    const r = await landscape().kubectl(['wait', 'di/wait-di', '--for=condition=Missing', '--timeout=1s']);
    expect(outcome(r)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: timed out waiting for the condition on deployitems/wait-di\n',
    });
  });

  it('--for=delete returns when the object is deleted', async () => {
    const l = landscape();
    const waiting = l.kubectlInBackground(['wait', 'di/wait-di', '--for=delete', '--timeout=20s', '-v=6']);
    try {
      await waiting.waitFor(WATCHING, { stream: 'stderr' });
      await l.kubectlOk(['delete', 'di', 'wait-di', '--wait=false']);
      expect(await waiting.exit()).toMatchObject({
        code: 0,
        stdout: 'deployitem.landscaper.gardener.cloud/wait-di condition met\n',
      });
    } finally {
      await waiting.stop();
    }
  });
});
