/**
 * Conformance: object identity and bookkeeping (uid, creationTimestamp, one increasing
 * resourceVersion across kinds, generation), list order, dryRun and generateName, driven
 * through @kubernetes/client-node.
 */
import type * as k8s from '@kubernetes/client-node';
import { expectStatus, startTestServer, type TestServer } from './support/cluster.js';
import { deployItem, DEPLOYITEMS, deployment, freshNamespace, MERGE_PATCH } from './conformance.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestServer;
let ns: string;
beforeAll(async () => {
  t = await startTestServer();
  ns = await freshNamespace(t, 'crud');
});
afterAll(() => t.stop());

type Custom = k8s.KubernetesObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

const rv = (o: k8s.KubernetesObject): number => Number(o.metadata!.resourceVersion);

describe('identity and bookkeeping', () => {
  it('sets uid, creationTimestamp and resourceVersion on create; a ConfigMap has no generation', async () => {
    const before = Date.now();
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'ident' }, data: { a: 'b' } },
    });
    expect(cm.metadata!.uid).toMatch(UUID);
    expect(cm.metadata!.resourceVersion).toMatch(/^[1-9]\d*$/);
    expect(cm.metadata!.generation).toBeUndefined();
    const created = cm.metadata!.creationTimestamp!.getTime();
    expect(created % 1000).toBe(0); // RFC 3339 with second precision
    expect(created).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(created).toBeLessThanOrEqual(Date.now());
    const read = await t.core.readNamespacedConfigMap({ name: 'ident', namespace: ns });
    expect(read.metadata).toMatchObject({
      uid: cm.metadata!.uid,
      resourceVersion: cm.metadata!.resourceVersion,
      namespace: ns,
    });
  });

  it('gives every object its own uid, even one re-created under the same name', async () => {
    const first = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'reborn' } },
    });
    await t.core.deleteNamespacedConfigMap({ name: 'reborn', namespace: ns });
    const second = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'reborn' } },
    });
    expect(second.metadata!.uid).not.toBe(first.metadata!.uid);
  });

  it('keeps creationTimestamp through an update that tries to change it', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'keep-created' } },
    });
    const updated = await t.core.replaceNamespacedConfigMap({
      name: 'keep-created',
      namespace: ns,
      body: {
        ...cm,
        metadata: { ...cm.metadata, creationTimestamp: new Date('2001-01-01T00:00:00Z') },
        data: { x: 'y' },
      },
    });
    expect(updated.metadata!.creationTimestamp).toEqual(cm.metadata!.creationTimestamp);
    expect(updated.metadata!.uid).toBe(cm.metadata!.uid);
  });

  // Known embedded-server bug (operations.ts update overwrites a mismatched uid instead of refusing): remove .failing once fixed.

  it('treats the uid of an update body as a precondition (409 Conflict on mismatch)', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'keep-uid' } },
    });
    const other = '00000000-0000-0000-0000-000000000000';
    const s = await expectStatus(() =>
      t.core.replaceNamespacedConfigMap({
        name: 'keep-uid',
        namespace: ns,
        body: { ...cm, metadata: { ...cm.metadata, uid: other }, data: { x: 'y' } },
      }),
    );
    expect(s).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(s.message).toMatch(/^Operation cannot be fulfilled on configmaps "keep-uid": /);
    expect(s.message).toContain(
      `Precondition failed: UID in precondition: ${other}, UID in object meta: ${cm.metadata!.uid}`,
    );
    expect((await t.core.readNamespacedConfigMap({ name: 'keep-uid', namespace: ns })).data).toBeUndefined();
  });

  it('uses one increasing resourceVersion across kinds and namespaces', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'rv-1' } },
    });
    const dep = await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('rv-2') });
    const di = (await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('rv-3'),
    })) as Custom;
    const other = await t.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'rv-4' } },
    });
    const cm2 = await t.core.replaceNamespacedConfigMap({
      name: 'rv-1',
      namespace: ns,
      body: { ...cm, data: { changed: 'yes' } },
    });
    const seq = [cm, dep, di, other, cm2].map(rv);
    expect([...seq].sort((a, b) => a - b)).toEqual(seq);
    expect(new Set(seq).size).toBe(seq.length);
    const list = await t.core.listNamespacedConfigMap({ namespace: ns });
    expect(Number(list.metadata!.resourceVersion)).toBeGreaterThanOrEqual(rv(cm2));
  });

  it('keeps the resourceVersion on an update that changes nothing', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'noop', labels: { a: 'b' } }, data: { k: 'v' } },
    });
    const same = await t.core.replaceNamespacedConfigMap({ name: 'noop', namespace: ns, body: cm });
    expect(same.metadata!.resourceVersion).toBe(cm.metadata!.resourceVersion);
  });

  it('accepts an update without resourceVersion unconditionally', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'uncond' }, data: { v: '1' } },
    });
    const updated = await t.core.replaceNamespacedConfigMap({
      name: 'uncond',
      namespace: ns,
      body: { metadata: { name: 'uncond' }, data: { v: '2' } },
    });
    expect(rv(updated)).toBeGreaterThan(rv(cm));
    expect(updated.data).toEqual({ v: '2' });
  });

  it('answers a delete of a ConfigMap with a Success Status naming it', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'gone' } },
    });
    const status = await t.core.deleteNamespacedConfigMap({ name: 'gone', namespace: ns });
    expect(status).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'gone', kind: 'configmaps', uid: cm.metadata!.uid },
    });
    expect(
      (await expectStatus(() => t.core.readNamespacedConfigMap({ name: 'gone', namespace: ns }))).code,
    ).toBe(404);
  });

  it('answers a delete of a custom resource with the object itself', async () => {
    const di = (await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('gone'),
    })) as Custom;
    const answer = (await t.custom.deleteNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      name: 'gone',
    })) as Custom;
    expect(answer).toMatchObject({ kind: 'DeployItem', metadata: { name: 'gone', uid: di.metadata!.uid } });
  });
});

describe('generation', () => {
  const patchDeployment = (name: string, body: object): Promise<k8s.V1Deployment> =>
    t.apps.patchNamespacedDeployment({ name, namespace: ns, body }, MERGE_PATCH);

  it('starts at 1 and bumps on a spec change of a Deployment', async () => {
    const dep = await t.apps.createNamespacedDeployment({
      namespace: ns,
      body: deployment('gen-spec', { replicas: 1 }),
    });
    expect(dep.metadata!.generation).toBe(1);
    const changed = await patchDeployment('gen-spec', { spec: { replicas: 3 } });
    expect(changed.metadata!.generation).toBe(2);
  });

  it('keeps the generation of a Deployment on a label change', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('gen-label') });
    const changed = await patchDeployment('gen-label', { metadata: { labels: { team: 'a' } } });
    expect(changed.metadata!.generation).toBe(1);
  });

  // Known embedded-server bug (objects.ts specChanged ignores Deployment annotations): remove .failing once fixed.

  it('bumps the generation of a Deployment on an annotation change (annotations are copied to ReplicaSets)', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('gen-annotation') });
    const changed = await patchDeployment('gen-annotation', { metadata: { annotations: { note: 'x' } } });
    expect(changed.metadata!.generation).toBe(2);
  });

  it('keeps the generation of a Deployment on a status write', async () => {
    const dep = await t.apps.createNamespacedDeployment({
      namespace: ns,
      body: deployment('gen-status', { replicas: 1 }),
    });
    const written = await t.apps.replaceNamespacedDeploymentStatus({
      name: 'gen-status',
      namespace: ns,
      body: { ...dep, status: { replicas: 1, observedGeneration: 1 } },
    });
    expect(written.metadata!.generation).toBe(1);
    expect(rv(written)).toBeGreaterThan(rv(dep));
  });

  it('keeps the generation of a custom resource on metadata changes and status writes, bumps it on spec changes', async () => {
    const name = 'gen-di';
    const di = (await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem(name),
    })) as Custom;
    expect(di.metadata!.generation).toBe(1);
    const patch = (body: object): Promise<Custom> =>
      t.custom.patchNamespacedCustomObject(
        { ...DEPLOYITEMS, namespace: ns, name, body },
        MERGE_PATCH,
      ) as Promise<Custom>;
    expect(
      (await patch({ metadata: { labels: { a: 'b' }, annotations: { c: 'd' } } })).metadata!.generation,
    ).toBe(1);
    const status = (await t.custom.patchNamespacedCustomObjectStatus(
      {
        ...DEPLOYITEMS,
        namespace: ns,
        name,
        body: { status: { phase: 'Succeeded', observedGeneration: 1 } },
      },
      MERGE_PATCH,
    )) as Custom;
    expect(status.metadata!.generation).toBe(1);
    expect((await patch({ spec: { timeout: '5m' } })).metadata!.generation).toBe(2);
  });
});

describe('list order', () => {
  it('lists across namespaces in etcd key order (namespace/name, byte-wise)', async () => {
    // "sorta-b/..." sorts before "sorta/..." because '-' < '/': a naive (namespace, name) sort gets this wrong
    const a = 'sorta';
    const ab = 'sorta-b';
    for (const n of [a, ab]) await t.core.createNamespace({ body: { metadata: { name: n } } });
    const create = (namespace: string, name: string): Promise<k8s.V1ConfigMap> =>
      t.core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name, labels: { list: 'order' } } },
      });
    for (const [n, name] of [
      [a, 'b'],
      [ab, 'b'],
      [a, 'a.b'],
      [a, 'a'],
      [ab, 'a'],
      [a, 'a-b'],
    ] as const)
      await create(n, name);
    const list = await t.core.listConfigMapForAllNamespaces({ labelSelector: 'list=order' });
    expect(list.items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`)).toEqual([
      'sorta-b/a',
      'sorta-b/b',
      'sorta/a',
      'sorta/a-b',
      'sorta/a.b',
      'sorta/b',
    ]);
    const one = await t.core.listNamespacedConfigMap({ namespace: a, labelSelector: 'list=order' });
    expect(one.items.map((i) => i.metadata!.name)).toEqual(['a', 'a-b', 'a.b', 'b']);
  });
});

describe('dryRun=All', () => {
  it('answers a create as if done but stores nothing', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'dry' }, data: { a: 'b' } },
      dryRun: 'All',
    });
    expect(cm.metadata).toMatchObject({ name: 'dry', namespace: ns });
    expect(cm.metadata!.uid).toMatch(UUID);
    const s = await expectStatus(() => t.core.readNamespacedConfigMap({ name: 'dry', namespace: ns }));
    expect(s).toMatchObject({ code: 404, message: 'configmaps "dry" not found' });
  });

  it('still refuses a dry-run create of an existing name', async () => {
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'dry-dup' } } });
    const s = await expectStatus(() =>
      t.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'dry-dup' } },
        dryRun: 'All',
      }),
    );
    expect(s).toMatchObject({ code: 409, reason: 'AlreadyExists' });
  });

  it('answers an update and a patch without storing them', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'dry-update' }, data: { v: '1' } },
    });
    const answered = await t.core.replaceNamespacedConfigMap({
      name: 'dry-update',
      namespace: ns,
      body: { ...cm, data: { v: '2' } },
      dryRun: 'All',
    });
    expect(answered.data).toEqual({ v: '2' });
    const patched = await t.core.patchNamespacedConfigMap(
      { name: 'dry-update', namespace: ns, body: { data: { v: '3' } }, dryRun: 'All' },
      MERGE_PATCH,
    );
    expect(patched.data).toEqual({ v: '3' });
    const stored = await t.core.readNamespacedConfigMap({ name: 'dry-update', namespace: ns });
    expect(stored.data).toEqual({ v: '1' });
    expect(stored.metadata!.resourceVersion).toBe(cm.metadata!.resourceVersion);
  });

  it('answers a delete without deleting', async () => {
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'dry-delete' } } });
    await t.core.deleteNamespacedConfigMap({ name: 'dry-delete', namespace: ns, dryRun: 'All' });
    await t.core.readNamespacedConfigMap({ name: 'dry-delete', namespace: ns });
  });

  // Known embedded-server bug (request.ts dryRun answers 400 BadRequest): remove .failing once fixed.

  it('refuses an unknown dryRun value as invalid CreateOptions (422)', async () => {
    const s = await expectStatus(() =>
      t.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'dry-bad' } },
        dryRun: 'Some',
      }),
    );
    expect(s).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(s.message).toMatch(/^CreateOptions\.meta\.k8s\.io "" is invalid: dryRun: Unsupported value: /);
    expect(
      (await expectStatus(() => t.core.readNamespacedConfigMap({ name: 'dry-bad', namespace: ns }))).code,
    ).toBe(404);
  });
});

describe('generateName', () => {
  it('appends five random characters to the prefix', async () => {
    const a = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { generateName: 'gen-' } },
    });
    const b = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { generateName: 'gen-' } },
    });
    expect(a.metadata!.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(b.metadata!.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(a.metadata!.name).not.toBe(b.metadata!.name);
    expect(a.metadata!.generateName).toBe('gen-');
    await t.core.readNamespacedConfigMap({ name: a.metadata!.name!, namespace: ns });
  });

  it('works for custom resources too', async () => {
    const di = (await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: { ...deployItem(''), metadata: { generateName: 'item-' } },
    })) as Custom;
    expect(di.metadata!.name).toMatch(/^item-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
});
