import type * as k8s from '@kubernetes/client-node';
import { expectStatus, startTestServer, uniqueName, type TestServer } from './support/cluster.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

const ns = 'default';

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function gone(name: string): Promise<boolean> {
  try {
    await t.core.readNamespacedConfigMap({ name, namespace: ns });
    return false;
  } catch (e) {
    if ((e as { code?: number }).code === 404) return true;
    throw e;
  }
}

async function owner(name = uniqueName('owner')): Promise<k8s.V1ConfigMap> {
  return t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name } } });
}

function ref(o: k8s.V1ConfigMap, block = false): k8s.V1OwnerReference {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: o.metadata!.name!,
    uid: o.metadata!.uid!,
    blockOwnerDeletion: block,
  };
}

async function dependent(owners: k8s.V1OwnerReference[], finalizers?: string[]): Promise<k8s.V1ConfigMap> {
  return t.core.createNamespacedConfigMap({
    namespace: ns,
    body: { metadata: { name: uniqueName('dep'), ownerReferences: owners, finalizers } },
  });
}

describe('garbage collection by ownerReferences', () => {
  it('deletes dependents after their owner by default (background)', async () => {
    const o = await owner();
    const d1 = await dependent([ref(o)]);
    const d2 = await dependent([ref(o)]);
    await t.core.deleteNamespacedConfigMap({ name: o.metadata!.name!, namespace: ns });
    expect(await gone(o.metadata!.name!)).toBe(true);
    await until('dependents to go', async () =>
      (await gone(d1.metadata!.name!)) && (await gone(d2.metadata!.name!)) ? true : undefined,
    );
  });

  it('keeps a foreground-deleted owner until its blocking dependents are gone', async () => {
    const o = await owner();
    const d = await dependent([ref(o, true)], ['example.com/hold']);
    await t.core.deleteNamespacedConfigMap({
      name: o.metadata!.name!,
      namespace: ns,
      propagationPolicy: 'Foreground',
    });
    const waiting = await t.core.readNamespacedConfigMap({ name: o.metadata!.name!, namespace: ns });
    expect(waiting.metadata!.deletionTimestamp).toBeDefined();
    expect(waiting.metadata!.finalizers).toEqual(['foregroundDeletion']);
    const dying = await until('the dependent to be marked deleted', async () => {
      const cur = await t.core.readNamespacedConfigMap({ name: d.metadata!.name!, namespace: ns });
      return cur.metadata!.deletionTimestamp ? cur : undefined;
    });
    expect(await gone(o.metadata!.name!)).toBe(false);
    await t.core.replaceNamespacedConfigMap({
      name: d.metadata!.name!,
      namespace: ns,
      body: { ...dying, metadata: { ...dying.metadata, finalizers: [] } },
    });
    await until('the owner to go', async () => ((await gone(o.metadata!.name!)) ? true : undefined));
  });

  it('orphans dependents with propagationPolicy=Orphan: they stay without the reference', async () => {
    const o = await owner();
    const d = await dependent([ref(o)]);
    await t.core.deleteNamespacedConfigMap({
      name: o.metadata!.name!,
      namespace: ns,
      propagationPolicy: 'Orphan',
    });
    await until('the owner to go', async () => ((await gone(o.metadata!.name!)) ? true : undefined));
    const kept = await t.core.readNamespacedConfigMap({ name: d.metadata!.name!, namespace: ns });
    expect(kept.metadata!.ownerReferences ?? []).toEqual([]);
  });

  it('keeps a dependent that still has a live owner, dropping the reference to the one that went', async () => {
    const a = await owner();
    const b = await owner();
    const d = await dependent([ref(a), ref(b)]);
    await t.core.deleteNamespacedConfigMap({ name: a.metadata!.name!, namespace: ns });
    const after = await until('the dangling reference to be dropped', async () => {
      const cur = await t.core.readNamespacedConfigMap({ name: d.metadata!.name!, namespace: ns });
      return cur.metadata!.ownerReferences?.length === 1 ? cur : undefined;
    });
    expect(after.metadata!.ownerReferences![0].uid).toBe(b.metadata!.uid);
  });

  it('deletes an object created with an owner that does not exist', async () => {
    const d = await dependent([
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '00000000-0000-0000-0000-000000000000' },
    ]);
    await until('the orphan to be collected', async () =>
      (await gone(d.metadata!.name!)) ? true : undefined,
    );
  });

  it('refuses an unknown propagationPolicy with 422 Invalid', async () => {
    const o = await owner();
    const s = await expectStatus(() =>
      t.core.deleteNamespacedConfigMap({
        name: o.metadata!.name!,
        namespace: ns,
        propagationPolicy: 'Sideways',
      }),
    );
    expect(s).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(s.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"',
    );
  });
});

describe('field selectors beyond metadata', () => {
  beforeAll(async () => {
    const pod = (name: string, node: string): k8s.V1Pod => ({
      metadata: { name },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] },
    });
    await t.core.createNamespacedPod({ namespace: ns, body: pod('fs-a', 'node-1') });
    await t.core.createNamespacedPod({ namespace: ns, body: pod('fs-b', 'node-2') });
    for (const [name, obj] of [
      ['ev-1', 'web'],
      ['ev-2', 'db'],
    ]) {
      await t.core.createNamespacedEvent({
        namespace: ns,
        body: {
          metadata: { name },
          involvedObject: { kind: 'Deployment', name: obj, namespace: ns },
          reason: 'Scaled',
          type: 'Normal',
          message: 'm',
        },
      });
    }
  });

  it('selects pods by spec.nodeName', async () => {
    const list = await t.core.listNamespacedPod({ namespace: ns, fieldSelector: 'spec.nodeName=node-2' });
    expect(list.items.map((p) => p.metadata!.name)).toEqual(['fs-b']);
  });

  it('selects events by involvedObject.name and kind', async () => {
    const list = await t.core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: 'involvedObject.kind=Deployment,involvedObject.name=web',
    });
    expect(list.items.map((e) => e.metadata.name)).toEqual(['ev-1']);
  });

  it('words an unsupported pod field label as the pod registry does', async () => {
    const s = await expectStatus(() =>
      t.core.listNamespacedPod({ namespace: ns, fieldSelector: 'spec.bogus=x' }),
    );
    expect(s).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'field label not supported: spec.bogus',
    });
  });
});
