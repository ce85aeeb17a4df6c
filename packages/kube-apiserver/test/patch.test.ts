/**
 * Conformance: JSON patch (RFC 6902), merge patch (RFC 7386) and strategic merge patch of a
 * Deployment's containers (merged by name), and the patch types a custom resource accepts,
 * driven through @kubernetes/client-node.
 */
import type * as k8s from '@kubernetes/client-node';
import { expectStatus, startTestServer, type TestServer } from './support/cluster.js';
import {
  deployItem,
  DEPLOYITEMS,
  deployment,
  freshNamespace,
  JSON_PATCH,
  MERGE_PATCH,
  STRATEGIC_PATCH,
} from './conformance.js';

let t: TestServer;
let ns: string;
beforeAll(async () => {
  t = await startTestServer();
  ns = await freshNamespace(t, 'patch');
});
afterAll(() => t.stop());

const twoContainers = (name: string): k8s.V1Deployment =>
  deployment(name, {
    replicas: 1,
    containers: [
      { name: 'a', image: 'a:1', env: [{ name: 'MODE', value: 'x' }] },
      { name: 'b', image: 'b:1' },
    ],
  });

const containersOf = (d: k8s.V1Deployment): { name: string; image?: string }[] =>
  d.spec!.template.spec!.containers.map((c) => ({ name: c.name, image: c.image }));

const patch = (name: string, body: unknown, options: k8s.ConfigurationOptions): Promise<k8s.V1Deployment> =>
  t.apps.patchNamespacedDeployment({ name, namespace: ns, body }, options);

describe('strategic merge patch', () => {
  it('merges containers by name, leaving the others alone', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: twoContainers('smp-merge') });
    const d = await patch(
      'smp-merge',
      { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } } },
      STRATEGIC_PATCH,
    );
    expect(containersOf(d)).toEqual([
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:2' },
    ]);
    expect(d.spec!.template.spec!.containers[0].env).toEqual([{ name: 'MODE', value: 'x' }]);
    expect(d.metadata!.generation).toBe(2);
  });

  it('appends a container with a new name', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: twoContainers('smp-add') });
    const d = await patch(
      'smp-add',
      { spec: { template: { spec: { containers: [{ name: 'c', image: 'c:1' }] } } } },
      STRATEGIC_PATCH,
    );
    expect(containersOf(d).map((c) => c.name)).toEqual(['a', 'b', 'c']);
  });

  it('removes a container with $patch: delete', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: twoContainers('smp-delete') });
    const d = await patch(
      'smp-delete',
      { spec: { template: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } } } },
      STRATEGIC_PATCH,
    );
    expect(containersOf(d)).toEqual([{ name: 'b', image: 'b:1' }]);
  });

  it('merges env of a container by name too', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: twoContainers('smp-env') });
    const d = await patch(
      'smp-env',
      { spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'EXTRA', value: 'y' }] }] } } } },
      STRATEGIC_PATCH,
    );
    expect(d.spec!.template.spec!.containers[0].env).toEqual([
      { name: 'MODE', value: 'x' },
      { name: 'EXTRA', value: 'y' },
    ]);
  });

  it('is the patch type of KubernetesObjectApi.patch by default', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: twoContainers('smp-objects') });
    const d = (await t.objects.patch({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'smp-objects', namespace: ns },
      spec: { template: { spec: { containers: [{ name: 'a', image: 'a:9' }] } } },
    } as k8s.KubernetesObject)) as k8s.V1Deployment;
    expect(containersOf(d)).toEqual([
      { name: 'a', image: 'a:9' },
      { name: 'b', image: 'b:1' },
    ]);
  });
});

describe('merge patch', () => {
  it('replaces the whole containers list', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: twoContainers('merge') });
    const d = await patch(
      'merge',
      { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:3' }] } } } },
      MERGE_PATCH,
    );
    expect(containersOf(d)).toEqual([{ name: 'b', image: 'b:3' }]);
  });

  it('removes a field set to null', async () => {
    await t.apps.createNamespacedDeployment({
      namespace: ns,
      body: { ...twoContainers('merge-null'), metadata: { name: 'merge-null', labels: { a: '1', b: '2' } } },
    });
    const d = await patch('merge-null', { metadata: { labels: { a: null } } }, MERGE_PATCH);
    expect(d.metadata!.labels).toEqual({ b: '2' });
  });
});

describe('JSON patch', () => {
  it('applies test and replace operations by index', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: twoContainers('json') });
    const d = await patch(
      'json',
      [
        { op: 'test', path: '/spec/template/spec/containers/1/name', value: 'b' },
        { op: 'replace', path: '/spec/template/spec/containers/1/image', value: 'b:4' },
        { op: 'add', path: '/metadata/labels', value: { patched: 'json' } },
      ],
      JSON_PATCH,
    );
    expect(containersOf(d)).toEqual([
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:4' },
    ]);
    expect(d.metadata!.labels).toEqual({ patched: 'json' });
  });

  // Known embedded-server bug (patch.ts jsonPatch appends the library error to the message): remove .failing once fixed.

  it('refuses a patch whose test operation fails with 422, changing nothing', async () => {
    const before = await t.apps.createNamespacedDeployment({
      namespace: ns,
      body: twoContainers('json-test'),
    });
    const s = await expectStatus(() =>
      patch(
        'json-test',
        [
          { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'not-a' },
          { op: 'replace', path: '/spec/replicas', value: 7 },
        ],
        JSON_PATCH,
      ),
    );
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    });
    const after = await t.apps.readNamespacedDeployment({ name: 'json-test', namespace: ns });
    expect(after.metadata!.resourceVersion).toBe(before.metadata!.resourceVersion);
  });
});

describe('patches of a custom resource', () => {
  it('accepts merge and JSON patches', async () => {
    await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('patched-di'),
    });
    const merged = (await t.custom.patchNamespacedCustomObject(
      { ...DEPLOYITEMS, namespace: ns, name: 'patched-di', body: { spec: { timeout: '1m' } } },
      MERGE_PATCH,
    )) as { spec: object };
    expect(merged.spec).toEqual({ type: 'landscaper.gardener.cloud/mock', timeout: '1m' });
    const json = (await t.custom.patchNamespacedCustomObject(
      { ...DEPLOYITEMS, namespace: ns, name: 'patched-di', body: [{ op: 'remove', path: '/spec/timeout' }] },
      JSON_PATCH,
    )) as { spec: object };
    expect(json.spec).toEqual({ type: 'landscaper.gardener.cloud/mock' });
  });

  // Known embedded-server bug (rest.ts patch falls back to a merge patch for custom resources): remove .failing once fixed.

  it('refuses a strategic merge patch with 415 UnsupportedMediaType', async () => {
    await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('smp-di'),
    });
    const s = await expectStatus(() =>
      t.custom.patchNamespacedCustomObject(
        { ...DEPLOYITEMS, namespace: ns, name: 'smp-di', body: { spec: { timeout: '1m' } } },
        STRATEGIC_PATCH,
      ),
    );
    expect(s).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
  });

  it('validates the patched object against the schema (422)', async () => {
    await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('bad-patch-di'),
    });
    const s = await expectStatus(() =>
      t.custom.patchNamespacedCustomObject(
        { ...DEPLOYITEMS, namespace: ns, name: 'bad-patch-di', body: { spec: { type: null } } },
        MERGE_PATCH,
      ),
    );
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'DeployItem.landscaper.gardener.cloud "bad-patch-di" is invalid: spec.type: Required value',
    });
  });
});
