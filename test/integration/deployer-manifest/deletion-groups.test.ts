/**
 * Deletion groups of the manifest deployer through the deployer host against the embedded API
 * server, the order asserted from the target cluster's audit of deletes: `deletionGroups` for the
 * uninstall (custom groups before the predefined ones, `forceDelete` removing finalizers), and
 * `deletionGroupsDuringUpdate` for objects dropped from the list (upstream
 * pkg/deployer/lib/resourcemanager/deletionmanager.go).
 */
import { GVK } from '../../../shared/api/gvk.js';
import { configMap, entry, read, startHarness, v2, type Harness } from './harness.js';
import { runtimeHarness, type RuntimeHarness } from './runtime-harness.js';

let h: Harness;
let rh: RuntimeHarness;

beforeAll(async () => {
  h = await startHarness(undefined, true);
  rh = await runtimeHarness(h);
}, 60_000);

afterAll(() => h?.stop());

const ns = (name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name },
});
const clusterRole = (name: string): Record<string, unknown> => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name },
  rules: [],
});

/** The resources of the target cluster's DELETED records after `from`, in order (one entry per resource/name). */
function deletes(from: number): string[] {
  return (h.srv.audit('target')?.records() ?? [])
    .filter((r) => r.seq > from && r.type === 'DELETED')
    .map((r) => `${r.resource}/${r.name}`);
}

const lastSeq = (): number => (h.srv.audit('target')?.records() ?? []).at(-1)?.seq ?? 0;

async function newJob(name: string, jobID: string, config?: unknown): Promise<void> {
  if (config !== undefined)
    await h.host.mergePatch(GVK.DeployItem, { namespace: 'default', name }, { spec: { config } });
  await h.host.mergePatch(
    GVK.DeployItem,
    { namespace: 'default', name },
    { status: { jobID } },
    { subresource: 'status' },
  );
}

describe('manifest deployer deletion groups', () => {
  it('uninstalls in the configured order; forceDelete removes finalizers', async () => {
    const held = {
      ...configMap('held', { a: '1' }, 'dg'),
      metadata: { name: 'held', namespace: 'dg', finalizers: ['example.com/hold'] },
    };
    const config = v2(
      [entry(ns('dg')), entry(configMap('cm', { a: '1' }, 'dg')), entry(held), entry(clusterRole('dg-role'))],
      {
        deletionGroups: [
          {
            customResourceGroup: {
              resources: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }],
            },
          },
          {
            customResourceGroup: {
              resources: [{ apiVersion: 'v1', kind: 'ConfigMap', names: ['held'] }],
              forceDelete: true,
            },
          },
          { predefinedResourceGroup: { type: 'namespaced-resources' } },
          { predefinedResourceGroup: { type: 'cluster-scoped-resources' } },
        ],
      },
    );
    const item = await rh.createItem('dg', config);
    expect((await rh.steps(item, 20, (i) => i.status?.phase === 'Succeeded')).status?.phase).toBe(
      'Succeeded',
    );
    const from = lastSeq();
    await h.host.delete(GVK.DeployItem, { namespace: 'default', name: 'dg' });
    await newJob('dg', 'job-2');
    await rh.steps(item, 40);
    expect(await read(h.host, GVK.DeployItem, 'default', 'dg')).toBeUndefined();
    const order = deletes(from).filter((d) => !d.startsWith('events'));
    expect(order.slice(0, 3)).toEqual([
      'clusterroles.rbac.authorization.k8s.io/dg-role',
      'configmaps/held',
      'configmaps/cm',
    ]);
    expect(order).toContain('namespaces/dg');
    expect(order.indexOf('namespaces/dg')).toBeGreaterThan(2);
  }, 60_000);

  it('deletes objects dropped from the list in the order of deletionGroupsDuringUpdate', async () => {
    const groups = {
      deletionGroupsDuringUpdate: [
        { predefinedResourceGroup: { type: 'cluster-scoped-resources' } },
        { predefinedResourceGroup: { type: 'namespaced-resources' } },
      ],
    };
    const keep = configMap('stays', { a: '1' });
    const first = v2(
      [entry(keep), entry(configMap('dropped', { a: '1' })), entry(clusterRole('dropped-role'))],
      groups,
    );
    const item = await rh.createItem('dgu', first);
    expect((await rh.steps(item, 20, (i) => i.status?.phase === 'Succeeded')).status?.phase).toBe(
      'Succeeded',
    );
    const from = lastSeq();
    await newJob('dgu', 'job-2', v2([entry(keep)], groups));
    const done = await rh.steps(
      item,
      20,
      (i) => i.status?.phase === 'Succeeded' && i.status.jobID === 'job-2',
    );
    expect(done.status).toMatchObject({ phase: 'Succeeded', jobIDFinished: 'job-2' });
    expect(deletes(from)).toEqual([
      'clusterroles.rbac.authorization.k8s.io/dropped-role',
      'configmaps/dropped',
    ]);
  }, 60_000);
});
