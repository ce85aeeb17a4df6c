/**
 * shared/kube against the embedded API server: generated clients, metadata-only reads, patches,
 * the status subresource, conflict retry, error helpers and Target kubeconfigs.
 */
import { CoordinationV1Api, CoreV1Api, V1MicroTime } from '@kubernetes/client-node';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { startApiServer } from '@landscape/kube-apiserver';
import type { ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem, SyncObject, Target } from '../../shared/api/landscaper.js';
import { KUBERNETES_CLUSTER_TARGET_TYPE, LandscaperAnnotations } from '../../shared/api/landscaper.js';
import {
  createKubeClient,
  isAlreadyExists,
  isConflict,
  isNotFound,
  kubeConfigForTarget,
  kubeConfigFromYaml,
  statusReason,
  TargetKubeconfigError,
  updateWithConflictRetry,
} from '../../shared/kube/index.js';
import type { KubeClient } from '../../shared/kube/index.js';
import { crdFiles } from '../../shared/api/crds.js';

const NS = 'default';

let srv: ApiServer;
let client: KubeClient;
let kubeconfigYaml: string;

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'] });
  const c = srv.cluster('main');
  kubeconfigYaml = c.kubeconfigYaml();
  client = createKubeClient(kubeConfigFromYaml(kubeconfigYaml), { fieldManager: 'kube-test' });
});

afterAll(async () => {
  await srv?.stop();
});

function configMap(
  name: string,
  data: Record<string, string>,
  labels: Record<string, string> = {},
): V1ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels }, data };
}

function deployItem(name: string): DeployItem {
  return {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: {
      name,
      namespace: NS,
      annotations: { [LandscaperAnnotations.deployerType]: 'landscaper.gardener.cloud/mock' },
    },
    spec: {
      type: 'landscaper.gardener.cloud/mock',
      target: { name: 'tgt' },
      config: { big: 'x'.repeat(200_000) },
    },
  };
}

describe('generated clients (object parameters)', () => {
  it('creates and reads a ConfigMap through CoreV1Api', async () => {
    const core = client.api(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: NS, body: configMap('gen-cm', { a: '1' }) });
    const read = await core.readNamespacedConfigMap({ name: 'gen-cm', namespace: NS });
    expect(read.data).toEqual({ a: '1' });
    expect(read.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(client.api(CoreV1Api)).toBe(core);
  });

  it('throws ApiException that the helpers understand', async () => {
    const core = client.api(CoreV1Api);
    const err: unknown = await core
      .readNamespacedConfigMap({ name: 'nope', namespace: NS })
      .catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect(statusReason(err)).toBe('NotFound');
  });

  it('round-trips a Lease: MicroTime goes out as V1MicroTime and comes back as a string', async () => {
    const coordination = client.api(CoordinationV1Api);
    // a plain Date would be sent with 3 fractional digits; kube-apiserver wants RFC3339Micro (6)
    const renewTime = new V1MicroTime('2024-01-02T03:04:05.123Z');
    await coordination.createNamespacedLease({
      namespace: 'kube-node-lease',
      body: { metadata: { name: 'node-a' }, spec: { holderIdentity: 'node-a', renewTime } },
    });
    const raw = await client.get<{ kind?: string; spec: { renewTime: string } }>(
      GVK.Lease,
      'kube-node-lease',
      'node-a',
    );
    expect(raw.spec.renewTime).toBe('2024-01-02T03:04:05.123000Z');
    const lease = await coordination.readNamespacedLease({ name: 'node-a', namespace: 'kube-node-lease' });
    // typed V1MicroTime (a Date), but client-node 1.4 does not deserialize it: it is the string
    expect(typeof lease.spec?.renewTime).toBe('string');
    expect(lease.metadata?.creationTimestamp).toBeInstanceOf(Date);
  });
});

describe('metadata-only reads', () => {
  it('getMetadata returns PartialObjectMetadata without the body', async () => {
    await client.create(GVK.DeployItem, deployItem('big-item'));
    const res = await client.request({
      method: 'GET',
      path: '/apis/landscaper.gardener.cloud/v1alpha1/namespaces/default/deployitems/big-item',
      accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    });
    expect(res.body.length).toBeLessThan(10_000);
    const meta = await client.getMetadata(GVK.DeployItem, NS, 'big-item');
    expect(meta.kind).toBe('PartialObjectMetadata');
    expect(meta.apiVersion).toBe('meta.k8s.io/v1');
    expect(meta.metadata.name).toBe('big-item');
    expect(meta.metadata.uid).toEqual(expect.any(String));
    expect(meta.metadata.annotations?.[LandscaperAnnotations.deployerType]).toBe(
      'landscaper.gardener.cloud/mock',
    );
    expect(meta).not.toHaveProperty('spec');
  });

  it('getMetadata of a missing object is NotFound', async () => {
    const err: unknown = await client.getMetadata(GVK.DeployItem, NS, 'missing').catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
  });

  it('getMetadata of a cluster-scoped kind', async () => {
    const meta = await client.getMetadata(GVK.Namespace, undefined, 'default');
    expect(meta.metadata.name).toBe('default');
  });

  it('listMetadata pages with limit/continue and filters by label', async () => {
    for (const i of [1, 2, 3])
      await client.create(GVK.ConfigMap, configMap(`page-${i}`, { d: 'x'.repeat(1000) }, { set: 'paged' }));
    await client.create(GVK.ConfigMap, configMap('page-other', {}, { set: 'other' }));
    const first = await client.listMetadata(GVK.ConfigMap, NS, { labelSelector: 'set=paged', limit: 2 });
    expect(first.kind).toBe('PartialObjectMetadataList');
    expect(first.items).toHaveLength(2);
    expect(first.items[0]).not.toHaveProperty('data');
    expect(first.metadata.continue).toEqual(expect.any(String));
    const second = await client.listMetadata(GVK.ConfigMap, NS, {
      labelSelector: 'set=paged',
      limit: 2,
      continue: first.metadata.continue,
    });
    const names = [...first.items, ...second.items].map((i) => i.metadata.name).sort();
    expect(names).toEqual(['page-1', 'page-2', 'page-3']);
    expect(second.metadata.continue ?? '').toBe('');
  });

  it('listMetadata across namespaces with a field selector', async () => {
    const list = await client.listMetadata(GVK.ConfigMap, undefined, {
      fieldSelector: 'metadata.name=page-1',
    });
    expect(list.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(['default/page-1']);
  });
});

describe('writes, patches and errors', () => {
  it('AlreadyExists is not a Conflict', async () => {
    await client.create(GVK.ConfigMap, configMap('dup', {}));
    const err: unknown = await client.create(GVK.ConfigMap, configMap('dup', {})).catch((e: unknown) => e);
    expect(isAlreadyExists(err)).toBe(true);
    expect(isConflict(err)).toBe(false);
    expect(statusReason(err)).toBe('AlreadyExists');
  });

  it('a stale resourceVersion is a Conflict', async () => {
    const created = await client.create(GVK.ConfigMap, configMap('stale', { v: '1' }));
    await client.replace(GVK.ConfigMap, { ...created, data: { v: '2' } });
    const err: unknown = await client
      .replace(GVK.ConfigMap, { ...created, data: { v: '3' } })
      .catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect(statusReason(err)).toBe('Conflict');
  });

  it('mergePatch adds and removes keys (RFC 7386)', async () => {
    await client.create(GVK.ConfigMap, configMap('merge', { keep: 'k', drop: 'd' }, { a: '1' }));
    const patched = await client.mergePatch<V1ConfigMap & { metadata: { labels: Record<string, string> } }>(
      GVK.ConfigMap,
      { namespace: NS, name: 'merge' },
      { metadata: { labels: { b: '2' } }, data: { drop: null, add: 'x' } },
    );
    expect(patched.metadata.labels).toEqual({ a: '1', b: '2' });
    expect(patched.data).toEqual({ keep: 'k', add: 'x' });
  });

  it('jsonPatch applies RFC 6902 operations and fails on a failed test', async () => {
    const created = await client.create(GVK.ConfigMap, configMap('jp', { a: '1' }));
    const patched = await client.jsonPatch<V1ConfigMap>(GVK.ConfigMap, { namespace: NS, name: 'jp' }, [
      { op: 'test', path: '/metadata/resourceVersion', value: created.metadata?.resourceVersion },
      { op: 'add', path: '/data/b', value: '2' },
      { op: 'remove', path: '/data/a' },
    ]);
    expect(patched.data).toEqual({ b: '2' });
    const err: unknown = await client
      .jsonPatch(GVK.ConfigMap, { namespace: NS, name: 'jp' }, [
        { op: 'test', path: '/metadata/resourceVersion', value: created.metadata?.resourceVersion },
        { op: 'add', path: '/data/c', value: '3' },
      ])
      .catch((e: unknown) => e);
    expect(err).toBeDefined();
    expect((err as { code: number }).code).toBeGreaterThanOrEqual(400);
  });

  it('patchStatus writes only the status; a main-resource patch ignores status', async () => {
    await client.create(GVK.DeployItem, {
      ...deployItem('status-item'),
      spec: { type: 'landscaper.gardener.cloud/mock' },
    });
    const ref = { namespace: NS, name: 'status-item' };
    const afterStatus = await client.patchStatus<DeployItem>(GVK.DeployItem, ref, {
      status: { phase: 'Init', observedGeneration: 1, jobID: 'j1' },
    });
    expect(afterStatus.status).toMatchObject({ phase: 'Init', jobID: 'j1' });
    const afterMain = await client.mergePatch<DeployItem>(GVK.DeployItem, ref, {
      spec: { timeout: '5m' },
      status: { phase: 'Failed' },
    });
    expect(afterMain.spec.timeout).toBe('5m');
    expect(afterMain.status?.phase).toBe('Init');
    const viaJsonPatch = await client.patchStatus<DeployItem>(GVK.DeployItem, ref, [
      { op: 'replace', path: '/status/phase', value: 'Succeeded' },
    ]);
    expect(viaJsonPatch.status?.phase).toBe('Succeeded');
    expect(viaJsonPatch.spec.timeout).toBe('5m');
  });

  it('delete, then NotFound', async () => {
    await client.create(GVK.ConfigMap, configMap('gone', {}));
    await client.delete(GVK.ConfigMap, { namespace: NS, name: 'gone' });
    const err: unknown = await client.get(GVK.ConfigMap, NS, 'gone').catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
  });

  it('KubernetesObjectApi reads a custom resource by discovery', async () => {
    const obj = (await client.objects().read({
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'DeployItem',
      metadata: { name: 'status-item', namespace: NS },
    })) as unknown as DeployItem;
    expect(obj.spec.type).toBe('landscaper.gardener.cloud/mock');
    // client-node deserializes the metadata of custom objects too: timestamps become Dates
    expect((obj.metadata as { creationTimestamp?: unknown }).creationTimestamp).toBeInstanceOf(Date);
  });
});

describe('updateWithConflictRetry', () => {
  it('re-reads after a concurrent write and wins on the next attempt (SyncObject takeover)', async () => {
    const ref = { namespace: NS, name: 'mock-0000' };
    await client.create<SyncObject>(GVK.SyncObject, {
      metadata: ref,
      spec: {
        podName: '',
        kind: 'DeployItem',
        name: 'x',
        lastUpdateTime: '2024-01-01T00:00:00Z',
        prefix: 'mock',
      },
    });
    let gets = 0;
    const sleeps: number[] = [];
    const result = await updateWithConflictRetry<SyncObject>(
      async () => {
        const current = await client.get<SyncObject>(GVK.SyncObject, NS, ref.name);
        gets += 1;
        if (gets === 1) {
          // another replica writes between our read and our write
          await client.mergePatch(GVK.SyncObject, ref, { spec: { podName: 'other' } });
        }
        return current;
      },
      (so) => ({ ...so, spec: { ...so.spec, podName: 'me', lastUpdateTime: '2024-01-01T00:01:00Z' } }),
      (so) => client.replace(GVK.SyncObject, so),
      { retries: 3, backoff: 7, sleep: (ms) => Promise.resolve(void sleeps.push(ms)) },
    );
    expect(gets).toBe(2);
    expect(sleeps).toEqual([7]);
    expect(result.spec.podName).toBe('me');
  });
});

describe('Target kubeconfigs', () => {
  function target(spec: Target['spec']): Target {
    return { metadata: { name: 'tgt', namespace: NS }, spec };
  }

  it('uses an inline kubeconfig', async () => {
    const kc = await kubeConfigForTarget(
      target({ type: KUBERNETES_CLUSTER_TARGET_TYPE, config: { kubeconfig: kubeconfigYaml } }),
      {
        readSecret: client.secretReader(),
      },
    );
    const meta = await createKubeClient(kc).getMetadata(GVK.Namespace, undefined, 'kube-system');
    expect(meta.metadata.name).toBe('kube-system');
  });

  it('reads a Secret in the Target namespace, with and without key', async () => {
    await client.create(GVK.Secret, {
      metadata: { name: 'cluster-access', namespace: NS },
      stringData: { kubeconfig: kubeconfigYaml, cluster1: `kubeconfig: ${JSON.stringify(kubeconfigYaml)}\n` },
    });
    const read = client.secretReader();
    for (const secretRef of [{ name: 'cluster-access' }, { name: 'cluster-access', key: 'cluster1' }]) {
      const kc = await kubeConfigForTarget(target({ type: KUBERNETES_CLUSTER_TARGET_TYPE, secretRef }), {
        readSecret: read,
      });
      const list = await createKubeClient(kc).listMetadata(GVK.Namespace);
      expect(list.items.map((i) => i.metadata.name)).toContain('default');
    }
    const err: unknown = await kubeConfigForTarget(
      target({ type: KUBERNETES_CLUSTER_TARGET_TYPE, secretRef: { name: 'absent' } }),
      { readSecret: read },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetKubeconfigError);
    expect((err as TargetKubeconfigError).problems.map((p) => p.kind)).toEqual(['SecretNotFound']);
  });

  it('refuses exec in a Target kubeconfig before any request', async () => {
    const evil = kubeconfigYaml.replace(
      /token: .*/,
      'exec: {command: /bin/sh, apiVersion: client.authentication.k8s.io/v1}',
    );
    const err: unknown = await kubeConfigForTarget(
      target({ type: KUBERNETES_CLUSTER_TARGET_TYPE, config: { kubeconfig: evil } }),
      {
        readSecret: client.secretReader(),
      },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetKubeconfigError);
    expect((err as TargetKubeconfigError).problems.map((p) => p.kind)).toContain('ForbiddenExec');
  });
});
