/**
 * Conformance: the status and scale subresources (a status write leaves spec alone and a main
 * write leaves status alone; Deployment and ManagedSeedSet scale GET/PUT/PATCH with the Scale's
 * status.selector), driven through @kubernetes/client-node.
 */
import type * as k8s from '@kubernetes/client-node';
import { expectStatus, startTestServer, type TestServer } from './support/cluster.js';
import {
  conflictMessage,
  deployItem,
  DEPLOYITEMS,
  deployment,
  freshNamespace,
  MERGE_PATCH,
} from './conformance.js';

let t: TestServer;
let ns: string;
beforeAll(async () => {
  t = await startTestServer();
  ns = await freshNamespace(t, 'sub');
});
afterAll(() => t.stop());

type Custom = k8s.KubernetesObject & { spec?: Record<string, any>; status?: Record<string, any> };

describe('status subresource', () => {
  it('writes status only: a status PUT leaves spec and labels as they were', async () => {
    const dep = await t.apps.createNamespacedDeployment({
      namespace: ns,
      body: deployment('st-put', { replicas: 2 }),
    });
    const written = await t.apps.replaceNamespacedDeploymentStatus({
      name: 'st-put',
      namespace: ns,
      body: {
        ...dep,
        metadata: { ...dep.metadata, labels: { sneaky: 'yes' } },
        spec: { ...dep.spec!, replicas: 9 },
        status: { replicas: 2, readyReplicas: 1 },
      },
    });
    expect(written.status).toMatchObject({ replicas: 2, readyReplicas: 1 });
    expect(written.spec!.replicas).toBe(2);
    expect(written.metadata!.labels).toBeUndefined();
    const stored = await t.apps.readNamespacedDeployment({ name: 'st-put', namespace: ns });
    expect(stored.spec!.replicas).toBe(2);
    expect(stored.status).toMatchObject({ replicas: 2, readyReplicas: 1 });
  });

  it('writes spec only: a main PUT leaves status as it was', async () => {
    const dep = await t.apps.createNamespacedDeployment({
      namespace: ns,
      body: deployment('main-put', { replicas: 1 }),
    });
    const withStatus = await t.apps.replaceNamespacedDeploymentStatus({
      name: 'main-put',
      namespace: ns,
      body: { ...dep, status: { replicas: 1 } },
    });
    const written = await t.apps.replaceNamespacedDeployment({
      name: 'main-put',
      namespace: ns,
      body: { ...withStatus, spec: { ...withStatus.spec!, replicas: 4 }, status: { replicas: 99 } },
    });
    expect(written.spec!.replicas).toBe(4);
    expect(written.status!.replicas).toBe(1);
  });

  it('ignores status in a create of a kind with a status subresource', async () => {
    const body = { ...deployment('born-with-status'), status: { replicas: 7 } };
    const dep = await t.apps.createNamespacedDeployment({ namespace: ns, body });
    expect(dep.status?.replicas).toBeUndefined();
  });

  it('patches the status of a custom resource without touching its spec', async () => {
    await t.custom.createNamespacedCustomObject({ ...DEPLOYITEMS, namespace: ns, body: deployItem('st-di') });
    const patched = (await t.custom.patchNamespacedCustomObjectStatus(
      {
        ...DEPLOYITEMS,
        namespace: ns,
        name: 'st-di',
        body: { spec: { type: 'changed' }, status: { phase: 'Progressing', observedGeneration: 1 } },
      },
      MERGE_PATCH,
    )) as Custom;
    expect(patched.status).toEqual({ phase: 'Progressing', observedGeneration: 1 });
    expect(patched.spec!.type).toBe('landscaper.gardener.cloud/mock');
    const main = (await t.custom.patchNamespacedCustomObject(
      { ...DEPLOYITEMS, namespace: ns, name: 'st-di', body: { status: { phase: 'Failed' } } },
      MERGE_PATCH,
    )) as Custom;
    expect(main.status!.phase).toBe('Progressing');
  });

  it('refuses a status write with a stale resourceVersion with 409 Conflict', async () => {
    const dep = await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('st-stale') });
    await t.apps.replaceNamespacedDeploymentStatus({
      name: 'st-stale',
      namespace: ns,
      body: { ...dep, status: { replicas: 1 } },
    });
    const s = await expectStatus(() =>
      t.apps.replaceNamespacedDeploymentStatus({
        name: 'st-stale',
        namespace: ns,
        body: { ...dep, status: { replicas: 2 } },
      }),
    );
    expect(s).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: conflictMessage('deployments.apps', 'st-stale'),
    });
  });

  it('answers 404 for the status of a kind without one', async () => {
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'no-status' } } });
    const res = await t.raw(`/api/v1/namespaces/${ns}/configmaps/no-status/status`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound' });
  });
});

describe('Deployment scale subresource', () => {
  const labels = { tier: 'web', app: 'shop' };

  it('reads the Scale with spec.replicas and status.replicas', async () => {
    const dep = await t.apps.createNamespacedDeployment({
      namespace: ns,
      body: deployment('sc-get', { replicas: 3, labels }),
    });
    await t.apps.replaceNamespacedDeploymentStatus({
      name: 'sc-get',
      namespace: ns,
      body: { ...dep, status: { replicas: 2 } },
    });
    const scale = await t.apps.readNamespacedDeploymentScale({ name: 'sc-get', namespace: ns });
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'sc-get', namespace: ns, uid: dep.metadata!.uid },
      spec: { replicas: 3 },
    });
    expect(scale.status!.replicas).toBe(2);
  });

  // Known embedded-server bug (selectors.ts formatLabelSelector keeps insertion order): remove .failing once fixed.

  it('reports spec.selector as the Scale status.selector string, requirements sorted by key', async () => {
    const body = deployment('sc-selector', { replicas: 1, labels });
    body.spec!.selector.matchExpressions = [{ key: 'track', operator: 'In', values: ['stable', 'canary'] }];
    body.spec!.template.metadata!.labels = { ...labels, track: 'stable' };
    await t.apps.createNamespacedDeployment({ namespace: ns, body });
    const scale = await t.apps.readNamespacedDeploymentScale({ name: 'sc-selector', namespace: ns });
    // metav1.LabelSelectorAsSelector(...).String(): requirements sorted by key, set values sorted
    expect(scale.status!.selector).toBe('app=shop,tier=web,track in (canary,stable)');
  });

  it('writes spec.replicas with a Scale PUT, bumping the generation and nothing else', async () => {
    const dep = await t.apps.createNamespacedDeployment({
      namespace: ns,
      body: deployment('sc-put', { replicas: 1 }),
    });
    const scale = await t.apps.readNamespacedDeploymentScale({ name: 'sc-put', namespace: ns });
    const answered = await t.apps.replaceNamespacedDeploymentScale({
      name: 'sc-put',
      namespace: ns,
      body: { ...scale, spec: { replicas: 5 } },
    });
    expect(answered).toMatchObject({ kind: 'Scale', spec: { replicas: 5 } });
    const stored = await t.apps.readNamespacedDeployment({ name: 'sc-put', namespace: ns });
    expect(stored.spec!.replicas).toBe(5);
    expect(stored.metadata!.generation).toBe(2);
    expect(stored.spec!.template).toEqual(dep.spec!.template);
    expect(answered.metadata!.resourceVersion).toBe(stored.metadata!.resourceVersion);
  });

  it('patches spec.replicas with a merge patch of the Scale', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('sc-patch', { replicas: 1 }) });
    const answered = await t.apps.patchNamespacedDeploymentScale(
      { name: 'sc-patch', namespace: ns, body: { spec: { replicas: 4 } } },
      MERGE_PATCH,
    );
    expect(answered.spec!.replicas).toBe(4);
    expect((await t.apps.readNamespacedDeployment({ name: 'sc-patch', namespace: ns })).spec!.replicas).toBe(
      4,
    );
  });

  it('refuses a Scale PUT with a stale resourceVersion with 409 Conflict naming the deployment', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('sc-stale', { replicas: 1 }) });
    const scale = await t.apps.readNamespacedDeploymentScale({ name: 'sc-stale', namespace: ns });
    await t.apps.replaceNamespacedDeploymentScale({
      name: 'sc-stale',
      namespace: ns,
      body: { ...scale, spec: { replicas: 2 } },
    });
    const s = await expectStatus(() =>
      t.apps.replaceNamespacedDeploymentScale({
        name: 'sc-stale',
        namespace: ns,
        body: { ...scale, spec: { replicas: 3 } },
      }),
    );
    expect(s).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: conflictMessage('deployments.apps', 'sc-stale'),
    });
  });

  it('refuses negative replicas with 422 Invalid on the Scale', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('sc-neg', { replicas: 1 }) });
    const s = await expectStatus(() =>
      t.apps.replaceNamespacedDeploymentScale({
        name: 'sc-neg',
        namespace: ns,
        body: { metadata: { name: 'sc-neg', namespace: ns }, spec: { replicas: -1 } },
      }),
    );
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'Scale.autoscaling "sc-neg" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    });
  });

  // Known embedded-server bug (builtins/apps.ts: no default for spec.replicas): remove .failing once fixed.

  it('reports the defaulted replicas (1) of a Deployment created without them', async () => {
    const dep = await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('sc-default') });
    expect(dep.spec!.replicas).toBe(1);
    const scale = await t.apps.readNamespacedDeploymentScale({ name: 'sc-default', namespace: ns });
    expect(scale.spec!.replicas).toBe(1);
  });
});

describe('ManagedSeedSet scale subresource', () => {
  const MSS = {
    group: 'seedmanagement.gardener.cloud',
    version: 'v1alpha1',
    plural: 'managedseedsets',
  } as const;
  const managedSeedSet = (name: string, replicas: number): Record<string, unknown> => ({
    apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
    kind: 'ManagedSeedSet',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { set: name, role: 'seed' } },
      template: { metadata: { labels: { set: name, role: 'seed' } }, spec: {} },
      shootTemplate: {
        metadata: { labels: { set: name, role: 'seed' } },
        spec: { provider: { type: 'gcp' }, region: 'europe-west1' },
      },
    },
  });

  it('reads the Scale of a ManagedSeedSet', async () => {
    const mss = (await t.custom.createNamespacedCustomObject({
      ...MSS,
      namespace: ns,
      body: managedSeedSet('seeds', 2),
    })) as Custom;
    await t.custom.patchNamespacedCustomObjectStatus(
      { ...MSS, namespace: ns, name: 'seeds', body: { status: { replicas: 1 } } },
      MERGE_PATCH,
    );
    const scale = (await t.custom.getNamespacedCustomObjectScale({
      ...MSS,
      namespace: ns,
      name: 'seeds',
    })) as Custom;
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'seeds', namespace: ns, uid: mss.metadata!.uid },
      spec: { replicas: 2 },
    });
    expect(scale.status!.replicas).toBe(1);
  });

  // Known embedded-server bug (selectors.ts formatLabelSelector keeps insertion order): remove .failing once fixed.

  it('reports spec.selector of a ManagedSeedSet as the Scale status.selector string', async () => {
    await t.custom.createNamespacedCustomObject({
      ...MSS,
      namespace: ns,
      body: managedSeedSet('selected-seeds', 1),
    });
    const scale = (await t.custom.getNamespacedCustomObjectScale({
      ...MSS,
      namespace: ns,
      name: 'selected-seeds',
    })) as Custom;
    // gardener-apiserver's Scale: metav1.LabelSelectorAsSelector(spec.selector).String(), sorted by key
    expect(scale.status!.selector).toBe('role=seed,set=selected-seeds');
  });

  it('writes the replicas of a ManagedSeedSet with a Scale PUT', async () => {
    await t.custom.createNamespacedCustomObject({
      ...MSS,
      namespace: ns,
      body: managedSeedSet('put-seeds', 2),
    });
    const scale = (await t.custom.getNamespacedCustomObjectScale({
      ...MSS,
      namespace: ns,
      name: 'put-seeds',
    })) as Custom;
    const put = (await t.custom.replaceNamespacedCustomObjectScale({
      ...MSS,
      namespace: ns,
      name: 'put-seeds',
      body: { ...scale, spec: { replicas: 3 } },
    })) as Custom;
    expect(put).toMatchObject({ kind: 'Scale', spec: { replicas: 3 } });
    const stored = (await t.custom.getNamespacedCustomObject({
      ...MSS,
      namespace: ns,
      name: 'put-seeds',
    })) as Custom;
    expect(stored.spec!.replicas).toBe(3);
    expect(stored.metadata!.generation).toBe(2);
    expect(stored.spec!.selector).toEqual({ matchLabels: { set: 'put-seeds', role: 'seed' } });
  });

  it('patches the replicas of a ManagedSeedSet with a merge patch of the Scale', async () => {
    await t.custom.createNamespacedCustomObject({
      ...MSS,
      namespace: ns,
      body: managedSeedSet('patch-seeds', 2),
    });
    const patched = (await t.custom.patchNamespacedCustomObjectScale(
      { ...MSS, namespace: ns, name: 'patch-seeds', body: { spec: { replicas: 0 } } },
      MERGE_PATCH,
    )) as Custom;
    expect(patched.spec!.replicas).toBe(0);
    const stored = (await t.custom.getNamespacedCustomObject({
      ...MSS,
      namespace: ns,
      name: 'patch-seeds',
    })) as Custom;
    expect(stored.spec!.replicas).toBe(0);
  });

  it('refuses a stale Scale PUT of a ManagedSeedSet with 409 Conflict', async () => {
    await t.custom.createNamespacedCustomObject({
      ...MSS,
      namespace: ns,
      body: managedSeedSet('stale-seeds', 1),
    });
    const scale = (await t.custom.getNamespacedCustomObjectScale({
      ...MSS,
      namespace: ns,
      name: 'stale-seeds',
    })) as Custom;
    await t.custom.replaceNamespacedCustomObjectScale({
      ...MSS,
      namespace: ns,
      name: 'stale-seeds',
      body: { ...scale, spec: { replicas: 2 } },
    });
    const s = await expectStatus(() =>
      t.custom.replaceNamespacedCustomObjectScale({
        ...MSS,
        namespace: ns,
        name: 'stale-seeds',
        body: { ...scale, spec: { replicas: 3 } },
      }),
    );
    expect(s).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: conflictMessage('managedseedsets.seedmanagement.gardener.cloud', 'stale-seeds'),
    });
  });

  it('answers 404 for the scale of a custom resource without one', async () => {
    await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('no-scale'),
    });
    const s = await expectStatus(() =>
      t.custom.getNamespacedCustomObjectScale({ ...DEPLOYITEMS, namespace: ns, name: 'no-scale' }),
    );
    expect(s).toMatchObject({ code: 404, reason: 'NotFound' });
  });
});
