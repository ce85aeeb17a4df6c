/**
 * "Not yet" through the deployer runtime (shared/deployer/runtime) against the embedded API
 * server: a manifest item whose namespace or kind does not exist yet stays Progressing with
 * upstream's error in lastError and is requeued (never waited on) until the namespace / CRD
 * appears — then it ends Succeeded in the same job — or the progressing timeout fires
 * (upstream: pkg/deployer/lib/resourcemanager/objectapplier.go, apiResourceHandler.go).
 */
import { GVK } from '../../../shared/api/gvk.js';
import type { DeployItem } from '../../../shared/api/landscaper.js';
import { reconcileItem, type ItemRef, type RuntimeDeps } from '../../../shared/deployer/runtime/run.js';
import type { Locker } from '../../../shared/lock/index.js';
import { createLogger } from '../../../shared/log/index.js';
import { createManifestDeployer } from '../../../functions/deployer-manifest/deployer.js';
import { configMap, entry, exampleCrd, NS, read, startHarness, v2, type Harness } from './harness.js';

let h: Harness;
let requeues: ItemRef[];

const locker: Locker = {
  prefix: 'manifest',
  owner: 'test',
  acquire: () => Promise.resolve({ locked: true }),
  release: () => Promise.resolve(),
  withLock: async (_t, fn) => ({ locked: true, value: await fn() }),
};

function deps(): RuntimeDeps {
  return {
    plugin: createManifestDeployer({ requeueAfterMs: 50 }),
    host: h.host,
    locker,
    requeue: (ref) => {
      requeues.push(ref);
      return Promise.resolve();
    },
    targetClient: () => Promise.resolve(h.target),
    hooks: {},
    deployer: { identity: 'test', name: 'manifest', version: 'test' },
    now: () => new Date(),
    newId: () => 'new-job',
    log: createLogger({ name: 'test', level: 'error' }),
    lockRetryMs: 50,
  };
}

beforeAll(async () => {
  h = await startHarness();
  await h.host.create(GVK.Context, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'Context',
    metadata: { name: 'default', namespace: NS },
  });
  await h.host.create(GVK.Target, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'Target',
    metadata: { name: 'tgt', namespace: NS },
    spec: { type: 'landscaper.gardener.cloud/kubernetes-cluster', config: { kubeconfig: 'unused' } },
  });
}, 60_000);

afterAll(() => h?.stop());

async function createItem(name: string, config: unknown, timeout?: string): Promise<ItemRef> {
  const item = await h.host.create<DeployItem>(GVK.DeployItem, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name, namespace: NS },
    spec: {
      type: 'landscaper.gardener.cloud/kubernetes-manifest',
      target: { name: 'tgt' },
      config: config as never,
      ...(timeout ? { timeout } : {}),
    },
  });
  await h.host.mergePatch(
    GVK.DeployItem,
    { namespace: NS, name },
    { status: { jobID: 'job-1', observedGeneration: 0 } },
    { subresource: 'status' },
  );
  return { namespace: NS, name, uid: item.metadata?.uid };
}

const getItem = (ref: ItemRef): Promise<DeployItem> => h.host.get<DeployItem>(GVK.DeployItem, NS, ref.name);

/** Runs the step for every requeue of `ref` until `until` holds or `max` steps are done. */
async function steps(ref: ItemRef, max: number, until?: (i: DeployItem) => boolean): Promise<DeployItem> {
  for (let i = 0; i < max; i++) {
    requeues = [];
    await reconcileItem(deps(), ref);
    const item = await getItem(ref);
    if (until?.(item) || !requeues.some((r) => r.name === ref.name)) return item;
    await new Promise((r) => setTimeout(r, 50));
  }
  return getItem(ref);
}

describe('manifest deployer: not yet', () => {
  it('a namespace created after the item: Progressing with the upstream error, then Succeeded in the same job', async () => {
    const ref = await createItem('ns-later', v2([entry(configMap('cm', { a: '1' }, 'later'))]));
    const first = await steps(ref, 1);
    expect(requeues).toEqual([expect.objectContaining({ name: 'ns-later' })]);
    expect(first.status).toMatchObject({ phase: 'Progressing', jobID: 'job-1' });
    expect(first.status?.jobIDFinished).toBeUndefined();
    expect(first.status?.lastError).toMatchObject({
      operation: 'ApplyObjects',
      reason: 'ApplyNewObject',
      message: 'unable to create resource later/cm: namespaces "later" not found',
    });
    expect(first.status?.lastError?.codes).toBeUndefined();
    const again = await steps(ref, 2);
    expect(again.status).toMatchObject({ phase: 'Progressing', lastError: { reason: 'ApplyNewObject' } });

    await h.target.create(GVK.Namespace, { metadata: { name: 'later' } });
    const done = await steps(ref, 20, (i) => i.status?.phase === 'Succeeded');
    expect(done.status).toMatchObject({ phase: 'Succeeded', jobID: 'job-1', jobIDFinished: 'job-1' });
    expect(done.status?.lastError).toBeUndefined();
    expect(await read(h.target, GVK.ConfigMap, 'later', 'cm')).toMatchObject({ data: { a: '1' } });
    expect(done.status?.providerStatus).toMatchObject({
      managedResources: [{ resource: { kind: 'ConfigMap', namespace: 'later', name: 'cm' } }],
    });
  }, 60_000);

  it('what could be applied is applied and managed while another object waits for its namespace', async () => {
    const ref = await createItem(
      'partial',
      v2([entry(configMap('here', { a: '1' })), entry(configMap('there', { a: '1' }, 'later2'))]),
    );
    const first = await steps(ref, 1);
    expect(first.status?.phase).toBe('Progressing');
    expect(await read(h.target, GVK.ConfigMap, NS, 'here')).toBeDefined();
    expect(first.status?.providerStatus).toMatchObject({
      managedResources: [{ resource: { kind: 'ConfigMap', namespace: NS, name: 'here' } }],
    });
  }, 60_000);

  it('a kind whose CRD comes later: GetApiResource until the CRD is there', async () => {
    const gadget = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: NS } };
    const ref = await createItem('kind-later', v2([entry(gadget)]));
    const first = await steps(ref, 1);
    expect(first.status).toMatchObject({
      phase: 'Progressing',
      lastError: {
        operation: 'GetApiResource',
        reason: 'GetApiResourceList',
        message:
          'unable to get api resources for example.com/v1: the server could not find the requested resource',
      },
    });
    expect(first.status?.lastError?.codes).toBeUndefined();
    await h.target.create(GVK.CustomResourceDefinition, exampleCrd('Widget', 'widgets'));
    const sameGroup = await steps(ref, 20, (i) => i.status?.lastError?.reason === 'GetApiResource');
    expect(sameGroup.status?.lastError).toMatchObject({
      operation: 'GetApiResource',
      reason: 'GetApiResource',
      message: 'unable to get apiresource for example.com/v1, Kind=Gadget',
    });
    await h.target.create(GVK.CustomResourceDefinition, exampleCrd('Gadget', 'gadgets'));
    const done = await steps(ref, 40, (i) => i.status?.phase === 'Succeeded');
    expect(done.status).toMatchObject({ phase: 'Succeeded', jobIDFinished: 'job-1' });
  }, 60_000);

  it('the progressing timeout ends the wait (ERR_TIMEOUT)', async () => {
    const ref = await createItem('never', v2([entry(configMap('cm', {}, 'never-there'))]), '1s');
    const first = await steps(ref, 1);
    expect(first.status?.phase).toBe('Progressing');
    await new Promise((r) => setTimeout(r, 1100));
    const failed = await steps(ref, 5, (i) => i.status?.phase === 'Failed');
    expect(failed.status).toMatchObject({
      phase: 'Failed',
      jobIDFinished: 'job-1',
      lastError: { reason: 'ProgressingTimeout', codes: ['ERR_TIMEOUT'] },
    });
  }, 60_000);

  it('an invalid manifest next to a missing namespace is still a configuration problem', async () => {
    const ref = await createItem(
      'invalid-too',
      v2([entry(configMap('Not-Valid!', { a: '1' })), entry(configMap('cm', {}, 'nowhere'))]),
    );
    const item = await steps(ref, 1);
    expect(item.status).toMatchObject({
      phase: 'Failed',
      lastError: { reason: 'ValidateManifests', codes: ['ERR_CONFIGURATION_PROBLEM'] },
    });
    expect(item.status?.lastError?.message).not.toContain('nowhere');
  }, 60_000);
});
