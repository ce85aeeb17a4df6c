/**
 * The manifest deployer against the embedded API server: apply, managedResources, cheap re-entry,
 * dropped objects, validation before anything is applied.
 */
import { GVK } from '../../../shared/api/gvk.js';
import { DeployerError, NotYetError } from '../../../shared/deployer/types.js';
import { createManifestDeployer, MANAGED_BY_LABEL } from '../../../functions/deployer-manifest/deployer.js';
import {
  CONFIG_V1,
  configMap,
  deployItem,
  drive,
  entry,
  nextJob,
  NS,
  read,
  startHarness,
  stepContext,
  v2,
  withProviderStatus,
  type Harness,
  exampleCrd,
} from './harness.js';

let h: Harness;
const plugin = createManifestDeployer({ requeueAfterMs: 20 });

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const crd = exampleCrd('Widget', 'widgets');

describe('apply', () => {
  it('applies a list in group order and records managedResources', async () => {
    const config = v2([
      entry(configMap('app-config', { a: '1' }, 'apply-ns')),
      entry({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1', namespace: 'apply-ns' },
        spec: { size: 3 },
      }),
      entry({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apply-ns' } }),
      entry(crd),
    ]);
    const { results, item } = await drive(h, plugin, 'reconcile', deployItem('apply', config));
    expect(results.map((r) => (r.kind === 'wait' ? r.reason : r.kind))).toEqual(['done']);
    const cm = await read(h.target, GVK.ConfigMap, 'apply-ns', 'app-config');
    expect(cm.data).toEqual({ a: '1' });
    expect(cm.metadata.labels[MANAGED_BY_LABEL]).toBe('apply');
    const widget = await h.target.get<any>(
      {
        group: 'example.com',
        version: 'v1',
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        plural: 'widgets',
        namespaced: true,
      },
      'apply-ns',
      'w1',
    );
    expect(widget.spec).toEqual({ size: 3 });
    expect(item.status?.providerStatus).toEqual({
      apiVersion: 'manifest.deployer.landscaper.gardener.cloud/v1alpha2',
      kind: 'ProviderStatus',
      appliedJobID: 'job-1',
      appliedGeneration: 1,
      managedResources: [
        {
          policy: 'manage',
          resource: {
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'CustomResourceDefinition',
            name: 'widgets.example.com',
          },
        },
        { policy: 'manage', resource: { apiVersion: 'v1', kind: 'Namespace', name: 'apply-ns' } },
        {
          policy: 'manage',
          resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'app-config', namespace: 'apply-ns' },
        },
        {
          policy: 'manage',
          resource: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w1', namespace: 'apply-ns' },
        },
      ],
    });
  });

  it('reads v1alpha1 (a plain list of manifests, policy manage)', async () => {
    const config = {
      apiVersion: CONFIG_V1,
      kind: 'ProviderConfiguration',
      manifests: [configMap('v1-cm', { k: 'v' })],
    };
    const { results, item } = await drive(h, plugin, 'reconcile', deployItem('v1', config));
    expect(results.at(-1)?.kind).toBe('done');
    expect((await read(h.target, GVK.ConfigMap, NS, 'v1-cm')).data).toEqual({ k: 'v' });
    expect((item.status?.providerStatus as any).managedResources).toEqual([
      { policy: 'manage', resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'v1-cm', namespace: NS } },
    ]);
  });

  it('re-entry of the same job writes nothing; a new job re-applies', async () => {
    const config = v2([entry(configMap('reentry', { a: '1' }))]);
    const first = await drive(h, plugin, 'reconcile', deployItem('reentry', config));
    const rv = (await read(h.target, GVK.ConfigMap, NS, 'reentry')).metadata.resourceVersion;
    // someone changes the object; the same job does not look at it again
    await h.target.mergePatch(GVK.ConfigMap, { namespace: NS, name: 'reentry' }, { data: { a: 'changed' } });
    const ctx = stepContext(h, first.item);
    const again = await plugin.reconcile(ctx);
    expect(again.kind).toBe('done');
    expect(ctx.checkpoints).not.toContain('deployer: apply manifests');
    expect((await read(h.target, GVK.ConfigMap, NS, 'reentry')).data).toEqual({ a: 'changed' });
    // a new job applies again
    const second = await drive(h, plugin, 'reconcile', nextJob(first.item, config));
    expect(second.results.at(-1)?.kind).toBe('done');
    const cm = await read(h.target, GVK.ConfigMap, NS, 'reentry');
    expect(cm.data).toEqual({ a: '1' });
    expect(cm.metadata.resourceVersion).not.toBe(rv);
  });

  it('deletes objects dropped from the list, but not keep ones', async () => {
    const config = v2([
      entry(configMap('stay', { a: '1' })),
      entry(configMap('dropped', { a: '1' })),
      entry(configMap('kept', { a: '1' }), 'keep'),
    ]);
    const first = await drive(h, plugin, 'reconcile', deployItem('drop', config));
    expect(first.results.at(-1)?.kind).toBe('done');
    const second = await drive(
      h,
      plugin,
      'reconcile',
      nextJob(first.item, v2([entry(configMap('stay', { a: '2' }))])),
    );
    expect(second.results.at(-1)?.kind).toBe('done');
    expect(await read(h.target, GVK.ConfigMap, NS, 'dropped')).toBeUndefined();
    expect(await read(h.target, GVK.ConfigMap, NS, 'kept')).toBeDefined();
    expect((await read(h.target, GVK.ConfigMap, NS, 'stay')).data).toEqual({ a: '2' });
    expect((second.item.status?.providerStatus as any).managedResources).toEqual([
      { policy: 'manage', resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'stay', namespace: NS } },
    ]);
  });

  it('waits while a dropped object is held by a finalizer, and keeps it in the status meanwhile', async () => {
    const held = {
      ...configMap('held', { a: '1' }),
      metadata: { name: 'held', namespace: NS, finalizers: ['test/hold'] },
    };
    const first = await drive(h, plugin, 'reconcile', deployItem('held', v2([entry(held)])));
    const item = nextJob(first.item, v2([]));
    const r = await plugin.reconcile(stepContext(h, item));
    expect(r).toMatchObject({ kind: 'wait', reason: expect.stringContaining('ConfigMap default/held') });
    const status = (r as { providerStatus: any }).providerStatus;
    expect(status.orphanedResources).toEqual([
      { policy: 'manage', resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'held', namespace: NS } },
    ]);
    expect(status.managedResources).toEqual([]);
    await h.target.jsonPatch(GVK.ConfigMap, { namespace: NS, name: 'held' }, [
      { op: 'remove', path: '/metadata/finalizers' },
    ]);
    const done = await drive(h, plugin, 'reconcile', withProviderStatus(item, status));
    expect(done.results.at(-1)?.kind).toBe('done');
    expect(await read(h.target, GVK.ConfigMap, NS, 'held')).toBeUndefined();
    expect((done.item.status?.providerStatus as any).orphanedResources).toBeUndefined();
  });
});

describe("the provider configuration's kubeconfig", () => {
  it('is used instead of the Target, for apply and uninstall', async () => {
    const kubeconfig = Buffer.from(h.srv.cluster('main').kubeconfigYaml()).toString('base64');
    const config = v2([entry(configMap('elsewhere', { a: '1' }))], { kubeconfig });
    const applied = await drive(h, plugin, 'reconcile', deployItem('kc', config));
    expect(applied.results.at(-1)?.kind).toBe('done');
    expect(await read(h.host, GVK.ConfigMap, NS, 'elsewhere')).toBeDefined();
    expect(await read(h.target, GVK.ConfigMap, NS, 'elsewhere')).toBeUndefined();
    expect((await drive(h, plugin, 'delete', applied.item)).results.at(-1)?.kind).toBe('done');
    expect(await read(h.host, GVK.ConfigMap, NS, 'elsewhere')).toBeUndefined();
  });

  it('is refused when it would run a program', async () => {
    const yaml = [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
      'users: [{name: u, user: {exec: {command: /bin/sh, apiVersion: client.authentication.k8s.io/v1}}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n');
    const config = v2([], { kubeconfig: Buffer.from(yaml).toString('base64') });
    const err: unknown = await plugin
      .reconcile(stepContext(h, deployItem('exec', config)))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'TargetClusterClient', codes: ['ERR_CONFIGURATION_PROBLEM'] });
    expect((err as Error).message).toContain('exec');
  });
});

async function failure(config: unknown, name: string): Promise<DeployerError> {
  const err: unknown = await plugin.reconcile(stepContext(h, deployItem(name, config))).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DeployerError);
  return err as DeployerError;
}

describe('validation before anything is applied', () => {
  it('an invalid manifest in the middle of the list: a configuration problem, nothing created', async () => {
    const err = await failure(
      v2([
        entry({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'invalid-ns' } }),
        entry(configMap('before-bad', { a: '1' }, 'invalid-ns')),
        entry(configMap('Bad_Name', { a: '1' })),
        entry({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'after-bad', namespace: NS },
          stringData: { x: 'y' },
        }),
      ]),
      'invalid',
    );
    expect(err.codes).toEqual(['ERR_CONFIGURATION_PROBLEM']);
    expect(err.message).toContain('manifests[2] (ConfigMap default/Bad_Name)');
    expect(err.message).not.toContain('manifests[1]');
    expect(await read(h.target, GVK.Namespace, undefined, 'invalid-ns')).toBeUndefined();
    expect(await read(h.target, GVK.Secret, NS, 'after-bad')).toBeUndefined();
  });

  it('lists every problem: missing namespaces, server rejections (an unknown kind is only "not yet")', async () => {
    const err = await failure(
      v2([
        entry({ apiVersion: 'example.org/v1', kind: 'Gadget', metadata: { name: 'g', namespace: NS } }),
        entry({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-ns' } }),
        entry(configMap('fine', { a: '1' })),
        entry(configMap('Not-Valid!', { a: '1' })),
      ]),
      'problems',
    );
    expect(err).toMatchObject({
      operation: 'ApplyObjects',
      reason: 'ValidateManifests',
      codes: ['ERR_CONFIGURATION_PROBLEM'],
    });
    expect(err.message).not.toContain('Gadget');
    expect(err.message).toContain(
      'manifests[1] (ConfigMap no-ns): ConfigMap is namespaced: metadata.namespace is required',
    );
    expect(err.message).toContain(
      'manifests[3] (ConfigMap default/Not-Valid!): ConfigMap "Not-Valid!" is invalid',
    );
    expect(err.message).not.toContain('manifests[2]');
    expect(await read(h.target, GVK.ConfigMap, NS, 'fine')).toBeUndefined();
  });

  it('a namespace that does not exist yet is "not yet" (recoverable, upstream message), not a problem', async () => {
    const err = await failure(v2([entry(configMap('cm', { a: '1' }, 'nowhere'))]), 'nowhere');
    expect(err).toBeInstanceOf(NotYetError);
    expect(err).toMatchObject({ operation: 'ApplyObjects', reason: 'ApplyNewObject', codes: [] });
    expect(err.message).toBe('unable to create resource nowhere/cm: namespaces "nowhere" not found');
  });

  it('a kind discovery does not know (yet) is "not yet" with upstream\'s GetApiResource error', async () => {
    const gadget = { apiVersion: 'example.org/v1', kind: 'Gadget', metadata: { name: 'g', namespace: NS } };
    const err = await failure(v2([entry(gadget), entry(configMap('fine2', { a: '1' }))]), 'gadget');
    expect(err).toBeInstanceOf(NotYetError);
    expect(err).toMatchObject({ operation: 'GetApiResource', reason: 'GetApiResourceList', codes: [] });
    expect(err.message).toBe(
      'unable to get api resources for example.org/v1: the server could not find the requested resource',
    );
    expect(await read(h.target, GVK.ConfigMap, NS, 'fine2')).toBeUndefined();
  });

  it('an invalid provider configuration names each problem', async () => {
    const err = await failure(
      v2([{ policy: 'sometimes', manifest: configMap('x', {}) }, { manifest: { kind: 'ConfigMap' } }], {
        updateStrategy: 'replace',
      }),
      'badconfig',
    );
    expect(err).toMatchObject({
      reason: 'ValidateProviderConfiguration',
      codes: ['ERR_CONFIGURATION_PROBLEM'],
    });
    expect(err.message).toContain('updateStrategy');
    expect(err.message).toContain('manifests[0] (ConfigMap default/x): policy');
    expect(err.message).toContain(
      'manifests[1] (ConfigMap <no name>): apiVersion: must be a non-empty string',
    );
  });

  it('without a Target client the item fails with a configuration problem', async () => {
    const err: unknown = await plugin
      .reconcile(stepContext(h, deployItem('notarget', v2([])), { noTarget: true }))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'TargetClusterClient', codes: ['ERR_CONFIGURATION_PROBLEM'] });
  });
});
