/**
 * Readiness (default checks with the embedded server's workload simulation, custom checks, the
 * progressing timeout) and the uninstall in upstream group order.
 */
import { GVK } from '../../../shared/api/gvk.js';
import { ProgressingTimeoutError } from '../../../shared/deployer/types.js';
import { createManifestDeployer } from '../../../functions/deployer-manifest/deployer.js';
import {
  configMap,
  deployItem,
  drive,
  entry,
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
const plugin = createManifestDeployer({ requeueAfterMs: 50 });

beforeAll(async () => {
  h = await startHarness({ delayMs: 300, createPods: true });
});
afterAll(async () => {
  await h?.stop();
});

function deployment(name: string, replicas = 2): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  };
}

function statefulSet(name: string): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: NS },
    spec: {
      replicas: 1,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  };
}

describe('readiness', () => {
  it('waits until Deployments and StatefulSets are ready, then is done', async () => {
    const config = v2([entry(deployment('web')), entry(statefulSet('db'))]);
    const { results } = await drive(h, plugin, 'reconcile', deployItem('ready', config));
    const first = results[0];
    expect(first.kind).toBe('wait');
    expect(first.kind === 'wait' && first.reason).toMatch(
      /(Deployment default\/web|StatefulSet default\/db) is not ready/,
    );
    expect(first.kind === 'wait' && first.afterMs).toBe(50);
    expect(results.at(-1)?.kind).toBe('done');
    expect((await read(h.target, GVK.Deployment, NS, 'web')).status.availableReplicas).toBe(2);
  });

  it('checks Pods (Ready condition)', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'lonely', namespace: NS },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    };
    const r = await plugin.reconcile(stepContext(h, deployItem('pod', v2([entry(pod)]))));
    expect(r).toMatchObject({
      kind: 'wait',
      reason: 'Pod default/lonely is not ready: condition "Ready" is missing',
    });
    const providerStatus = (r as { providerStatus: Record<string, unknown> }).providerStatus;
    await h.target.patchStatus(
      GVK.Pod,
      { namespace: NS, name: 'lonely' },
      {
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
      },
    );
    const again = await plugin.reconcile(
      stepContext(h, withProviderStatus(deployItem('pod', v2([entry(pod)])), providerStatus)),
    );
    expect(again.kind).toBe('done');
  });

  it('disableDefault skips the default checks', async () => {
    const config = v2([entry(deployment('unchecked'))], { readinessChecks: { disableDefault: true } });
    const r = await plugin.reconcile(stepContext(h, deployItem('unchecked', config)));
    expect(r.kind).toBe('done');
  });

  it('the progressing timeout ends a wait for readiness', async () => {
    const item = deployItem('late', v2([entry(deployment('late', 3))]));
    const err: unknown = await plugin
      .reconcile(stepContext(h, item, { expired: ['manifest deployer: default readiness checks'] }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProgressingTimeoutError);
    expect(err).toMatchObject({
      codes: ['ERR_TIMEOUT'],
      message: 'timeout at: "manifest deployer: default readiness checks"',
    });
  });

  it('custom readiness checks read fields by JSONPath', async () => {
    const config = v2([entry(configMap('gate', { state: 'pending' }))], {
      readinessChecks: {
        custom: [
          {
            name: 'gate-open',
            resourceSelector: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gate', namespace: NS }],
            requirements: [{ jsonPath: '.data.state', operator: '==', values: [{ value: 'open' }] }],
          },
        ],
      },
    });
    const item = deployItem('custom', config);
    const r = await plugin.reconcile(stepContext(h, item));
    expect(r).toMatchObject({
      kind: 'wait',
      reason: expect.stringContaining('gate-open: ConfigMap default/gate is not ready'),
    });
    await h.target.mergePatch(GVK.ConfigMap, { namespace: NS, name: 'gate' }, { data: { state: 'open' } });
    const again = await plugin.reconcile(
      stepContext(
        h,
        withProviderStatus(item, (r as { providerStatus: Record<string, unknown> }).providerStatus),
      ),
    );
    expect(again.kind).toBe('done');
  });
});

describe('uninstall', () => {
  const crd = exampleCrd('Gizmo', 'gizmos');
  const gizmo = { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g1', namespace: 'un-ns' } };
  const held = {
    ...configMap('held', { a: '1' }, 'un-ns'),
    metadata: { name: 'held', namespace: 'un-ns', finalizers: ['test/hold'] },
  };
  const nsObj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'un-ns' } };
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'un-role', finalizers: ['test/hold'] },
    rules: [],
  };

  it('deletes namespaced objects, then cluster-scoped ones, then CRDs, waiting for each group', async () => {
    const config = v2([
      entry(crd),
      entry(nsObj),
      entry(role),
      entry(gizmo),
      entry(held),
      entry(configMap('kept', {}, 'default'), 'keep'),
    ]);
    const applied = await drive(h, plugin, 'reconcile', deployItem('un', config));
    expect(applied.results.at(-1)?.kind).toBe('done');

    // namespaced group first: the held ConfigMap keeps the step waiting; nothing else is touched yet
    const r1 = await plugin.delete(stepContext(h, applied.item));
    expect(r1).toMatchObject({ kind: 'wait', reason: expect.stringContaining('(namespaced-resources)') });
    expect(r1.kind === 'wait' && r1.reason).toContain('ConfigMap un-ns/held');
    const ns = await read(h.target, GVK.Namespace, undefined, 'un-ns');
    expect(ns.metadata.deletionTimestamp).toBeUndefined();
    expect(await read(h.target, GVK.CustomResourceDefinition, undefined, 'gizmos.example.com')).toBeDefined();
    const ps1 = (r1 as { providerStatus: any }).providerStatus;
    expect(ps1.managedResources.map((m: any) => m.resource.kind)).toEqual([
      'ConfigMap', // keep: stays recorded, never deleted
      'ConfigMap',
      'ClusterRole',
      'Namespace',
      'CustomResourceDefinition',
    ]);

    // still held: same answer, the rest untouched
    const r2 = await plugin.delete(stepContext(h, withProviderStatus(applied.item, ps1)));
    expect(r2.kind).toBe('wait');
    expect(await read(h.target, GVK.CustomResourceDefinition, undefined, 'gizmos.example.com')).toBeDefined();

    // released: the namespaced group goes, the cluster-scoped group is deleted next, CRDs wait
    await h.target.jsonPatch(GVK.ConfigMap, { namespace: 'un-ns', name: 'held' }, [
      { op: 'remove', path: '/metadata/finalizers' },
    ]);
    const r3 = await plugin.delete(stepContext(h, withProviderStatus(applied.item, ps1)));
    expect(r3).toMatchObject({ kind: 'wait', reason: expect.stringContaining('(cluster-scoped-resources)') });
    expect(r3.kind === 'wait' && r3.reason).toContain('ClusterRole un-role');
    expect(await read(h.target, GVK.ConfigMap, 'un-ns', 'held')).toBeUndefined();
    expect(await read(h.target, GVK.CustomResourceDefinition, undefined, 'gizmos.example.com')).toBeDefined();
    const ps3 = (r3 as { providerStatus: any }).providerStatus;
    expect(ps3.managedResources.map((m: any) => m.resource.kind)).toEqual([
      'ConfigMap',
      'ClusterRole',
      'CustomResourceDefinition',
    ]);

    const roleGvk = {
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      plural: 'clusterroles',
      namespaced: false,
    };
    await h.target.jsonPatch(roleGvk, { name: 'un-role' }, [{ op: 'remove', path: '/metadata/finalizers' }]);
    const rest = await drive(h, plugin, 'delete', withProviderStatus(applied.item, ps3));
    expect(rest.results.at(-1)?.kind).toBe('done');
    expect(await read(h.target, GVK.Namespace, undefined, 'un-ns')).toBeUndefined();
    expect(await read(h.target, roleGvk, undefined, 'un-role')).toBeUndefined();
    expect(
      await read(h.target, GVK.CustomResourceDefinition, undefined, 'gizmos.example.com'),
    ).toBeUndefined();
    expect(await read(h.target, GVK.ConfigMap, 'default', 'kept')).toBeDefined();
  });

  it('an item that manages nothing is done at once', async () => {
    expect((await plugin.delete(stepContext(h, deployItem('empty', v2([]))))).kind).toBe('done');
  });

  it('objects already gone (or whose CRD is gone) count as deleted', async () => {
    const item = withProviderStatus(deployItem('ghosts', v2([])), {
      apiVersion: 'manifest.deployer.landscaper.gardener.cloud/v1alpha2',
      kind: 'ProviderStatus',
      managedResources: [
        {
          policy: 'manage',
          resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'never-there', namespace: NS },
        },
        {
          policy: 'manage',
          resource: { apiVersion: 'gone.example.com/v1', kind: 'Ghost', name: 'g', namespace: NS },
        },
      ],
    });
    expect((await plugin.delete(stepContext(h, item))).kind).toBe('done');
  });
});
