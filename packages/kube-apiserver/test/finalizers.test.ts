/**
 * Conformance: finalizers and deletionTimestamp, and namespace termination, driven through
 * @kubernetes/client-node.
 */
import type * as k8s from '@kubernetes/client-node';
import { expectStatus, startTestServer, uniqueName, type TestServer } from './support/cluster.js';
import {
  deployItem,
  DEPLOYITEMS,
  deployment,
  eventually,
  freshNamespace,
  JSON_PATCH,
  MERGE_PATCH,
} from './conformance.js';

const KEEP = 'example.com/keep';

let t: TestServer;
let ns: string;
beforeAll(async () => {
  t = await startTestServer();
  ns = await freshNamespace(t, 'fin');
});
afterAll(() => t.stop());

type Custom = k8s.KubernetesObject & { spec?: Record<string, unknown> };

const createKept = (name: string, finalizers = [KEEP]): Promise<k8s.V1ConfigMap> =>
  t.core.createNamespacedConfigMap({
    namespace: ns,
    body: { metadata: { name, finalizers }, data: { a: 'b' } },
  });

const setFinalizers = (name: string, finalizers: string[] | null): Promise<k8s.V1ConfigMap> =>
  t.core.patchNamespacedConfigMap({ name, namespace: ns, body: { metadata: { finalizers } } }, MERGE_PATCH);

describe('finalizers', () => {
  it('leaves an object with finalizers in place, marked with deletionTimestamp, and answers it', async () => {
    const cm = await createKept('kept');
    // client-node types every delete answer as V1Status and drops the object's fields: read it raw
    const res = await t.raw(`/api/v1/namespaces/${ns}/configmaps/kept`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'kept', deletionGracePeriodSeconds: 0, finalizers: [KEEP] },
    });
    expect(res.json.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const stored = await t.core.readNamespacedConfigMap({ name: 'kept', namespace: ns });
    expect(stored.metadata!.deletionTimestamp).toEqual(new Date(res.json.metadata.deletionTimestamp));
    expect(Number(stored.metadata!.resourceVersion)).toBeGreaterThan(Number(cm.metadata!.resourceVersion));
    expect(stored.data).toEqual({ a: 'b' });
  });

  it('treats a second delete of a terminating object as a no-op', async () => {
    await createKept('kept-twice');
    await t.core.deleteNamespacedConfigMap({ name: 'kept-twice', namespace: ns });
    const first = await t.core.readNamespacedConfigMap({ name: 'kept-twice', namespace: ns });
    await t.core.deleteNamespacedConfigMap({ name: 'kept-twice', namespace: ns });
    const second = await t.core.readNamespacedConfigMap({ name: 'kept-twice', namespace: ns });
    expect(second.metadata!.resourceVersion).toBe(first.metadata!.resourceVersion);
    expect(second.metadata!.deletionTimestamp).toEqual(first.metadata!.deletionTimestamp);
  });

  it('deletes the object when its last finalizer is removed', async () => {
    await createKept('released', [KEEP, 'example.com/second']);
    await t.core.deleteNamespacedConfigMap({ name: 'released', namespace: ns });
    const one = await setFinalizers('released', [KEEP]);
    expect(one.metadata!.finalizers).toEqual([KEEP]);
    await t.core.readNamespacedConfigMap({ name: 'released', namespace: ns });
    await t.core.patchNamespacedConfigMap(
      { name: 'released', namespace: ns, body: [{ op: 'remove', path: '/metadata/finalizers' }] },
      JSON_PATCH,
    );
    const s = await expectStatus(() => t.core.readNamespacedConfigMap({ name: 'released', namespace: ns }));
    expect(s).toMatchObject({ code: 404, message: 'configmaps "released" not found' });
  });

  // Known embedded-server bug (meta.ts validateMetaUpdate renders the list as JSON, not Go %#v): remove .failing once fixed.

  it('refuses a new finalizer on an object being deleted with 422', async () => {
    await createKept('no-new');
    await t.core.deleteNamespacedConfigMap({ name: 'no-new', namespace: ns });
    const s = await expectStatus(() => setFinalizers('no-new', [KEEP, 'example.com/other']));
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'ConfigMap "no-new" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/other"}',
    });
    expect(s.details?.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        message:
          'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/other"}',
        field: 'metadata.finalizers',
      },
    ]);
  });

  it('does not let an update clear deletionTimestamp', async () => {
    await createKept('sticky');
    await t.core.deleteNamespacedConfigMap({ name: 'sticky', namespace: ns });
    const terminating = await t.core.readNamespacedConfigMap({ name: 'sticky', namespace: ns });
    const updated = await t.core.replaceNamespacedConfigMap({
      name: 'sticky',
      namespace: ns,
      body: {
        ...terminating,
        metadata: { ...terminating.metadata, deletionTimestamp: undefined },
        data: { a: 'c' },
      },
    });
    expect(updated.metadata!.deletionTimestamp).toEqual(terminating.metadata!.deletionTimestamp);
    expect(updated.data).toEqual({ a: 'c' });
  });

  // Known embedded-server bug (operations.ts delete does not bump generation when marking deleted): remove .failing once fixed.

  it('keeps a custom resource with a finalizer and bumps its generation when marking it deleted', async () => {
    await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('kept-di', undefined, { finalizers: [KEEP] }),
    });
    const answer = (await t.custom.deleteNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      name: 'kept-di',
    })) as Custom;
    expect(answer.kind).toBe('DeployItem');
    expect(answer.metadata!.deletionTimestamp).toBeDefined();
    // registry markAsDeleting: generation+1 for objects that track it
    expect(answer.metadata!.generation).toBe(2);
    const stored = (await t.custom.getNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      name: 'kept-di',
    })) as Custom;
    expect(stored.metadata!.generation).toBe(2);
  });

  it('deletes a custom resource once its finalizer is removed', async () => {
    await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('released-di', undefined, { finalizers: [KEEP] }),
    });
    await t.custom.deleteNamespacedCustomObject({ ...DEPLOYITEMS, namespace: ns, name: 'released-di' });
    await t.custom.patchNamespacedCustomObject(
      { ...DEPLOYITEMS, namespace: ns, name: 'released-di', body: { metadata: { finalizers: null } } },
      MERGE_PATCH,
    );
    const s = await expectStatus(() =>
      t.custom.getNamespacedCustomObject({ ...DEPLOYITEMS, namespace: ns, name: 'released-di' }),
    );
    expect(s).toMatchObject({
      code: 404,
      message: 'deployitems.landscaper.gardener.cloud "released-di" not found',
    });
  });
});

describe('namespace deletion', () => {
  it('marks the namespace Terminating, removes its objects, then the namespace', async () => {
    const name = uniqueName('doomed');
    await t.core.createNamespace({ body: { metadata: { name } } });
    await t.core.createNamespacedConfigMap({ namespace: name, body: { metadata: { name: 'cm' } } });
    await t.apps.createNamespacedDeployment({ namespace: name, body: deployment('dep') });
    await t.custom.createNamespacedCustomObject({ ...DEPLOYITEMS, namespace: name, body: deployItem('di') });
    const res = await t.raw(`/api/v1/namespaces/${name}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      kind: 'Namespace',
      metadata: { name },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Terminating' },
    });
    expect(res.json.metadata.deletionTimestamp).toBeDefined();
    await eventually(async () => {
      const s = await expectStatus(() => t.core.readNamespace({ name }));
      expect(s).toMatchObject({ code: 404, message: `namespaces "${name}" not found` });
    });
    expect((await t.core.listNamespacedConfigMap({ namespace: name })).items).toEqual([]);
    expect((await t.apps.listNamespacedDeployment({ namespace: name })).items).toEqual([]);
    expect(
      (
        (await t.custom.listNamespacedCustomObject({ ...DEPLOYITEMS, namespace: name })) as {
          items: unknown[];
        }
      ).items,
    ).toEqual([]);
  });

  // Known embedded-server bug (operations.ts checkNamespaceWritable passes no name and no cause): remove .failing once fixed.

  it('refuses creates in a terminating namespace with 403 Forbidden', async () => {
    const name = uniqueName('closing');
    await t.core.createNamespace({ body: { metadata: { name } } });
    // a finalizer keeps the namespace terminating while we try to create in it
    await t.core.createNamespacedConfigMap({
      namespace: name,
      body: { metadata: { name: 'holder', finalizers: [KEEP] } },
    });
    await t.core.deleteNamespace({ name });
    const s = await expectStatus(() =>
      t.core.createNamespacedConfigMap({ namespace: name, body: { metadata: { name: 'late' } } }),
    );
    expect(s).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: `configmaps "late" is forbidden: unable to create new content in namespace ${name} because it is being terminated`,
    });
    expect(s.details).toMatchObject({
      name: 'late',
      kind: 'configmaps',
      causes: [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${name} is being terminated`,
          field: 'metadata.namespace',
        },
      ],
    });
    const di = await expectStatus(() =>
      t.custom.createNamespacedCustomObject({ ...DEPLOYITEMS, namespace: name, body: deployItem('late') }),
    );
    expect(di).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: `deployitems.landscaper.gardener.cloud "late" is forbidden: unable to create new content in namespace ${name} because it is being terminated`,
    });
    await t.core.patchNamespacedConfigMap(
      { name: 'holder', namespace: name, body: { metadata: { finalizers: null } } },
      MERGE_PATCH,
    );
    await eventually(async () =>
      expect((await expectStatus(() => t.core.readNamespace({ name }))).code).toBe(404),
    );
  });

  it('stays Terminating while an object in it still has a finalizer', async () => {
    const name = uniqueName('held');
    await t.core.createNamespace({ body: { metadata: { name } } });
    await t.core.createNamespacedConfigMap({
      namespace: name,
      body: { metadata: { name: 'holder', finalizers: [KEEP] } },
    });
    await t.core.createNamespacedConfigMap({ namespace: name, body: { metadata: { name: 'plain' } } });
    await t.core.deleteNamespace({ name });
    await eventually(async () =>
      expect(
        (await expectStatus(() => t.core.readNamespacedConfigMap({ name: 'plain', namespace: name }))).code,
      ).toBe(404),
    );
    const holder = await t.core.readNamespacedConfigMap({ name: 'holder', namespace: name });
    expect(holder.metadata!.deletionTimestamp).toBeDefined();
    const namespace = await t.core.readNamespace({ name });
    expect(namespace.status!.phase).toBe('Terminating');
    await t.core.patchNamespacedConfigMap(
      { name: 'holder', namespace: name, body: { metadata: { finalizers: null } } },
      MERGE_PATCH,
    );
    await eventually(async () =>
      expect((await expectStatus(() => t.core.readNamespace({ name }))).code).toBe(404),
    );
  });
});
