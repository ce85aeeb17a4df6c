/**
 * Policies (manage, fallback, keep, ignore, immutable) and update strategies (update, patch,
 * merge, mergeOverwrite) of the manifest deployer against the embedded API server.
 */
import { GVK } from '../../../shared/api/gvk.js';
import { createManifestDeployer, MANAGED_BY_LABEL } from '../../../functions/deployer-manifest/deployer.js';
import {
  configMap,
  deployItem,
  drive,
  entry,
  nextJob,
  NS,
  read,
  startHarness,
  v2,
  type Harness,
} from './harness.js';

let h: Harness;
const plugin = createManifestDeployer({ requeueAfterMs: 20 });

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

/** A ConfigMap someone else made (with a label of its own, maybe a deployer's). */
async function preexisting(name: string, labels: Record<string, string> = {}): Promise<void> {
  await h.target.create(GVK.ConfigMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: NS,
      labels: { owner: 'someone', ...labels },
      annotations: { note: 'theirs' },
    },
    data: { a: 'theirs', extra: 'x' },
  });
}

function managedNames(item: { status?: { providerStatus?: unknown } }): string[] {
  const ps = item.status?.providerStatus as {
    managedResources: { policy: string; resource: { name: string } }[];
  };
  return ps.managedResources.map((m) => `${m.policy}:${m.resource.name}`);
}

describe('policies', () => {
  it('manage takes over an existing object', async () => {
    await preexisting('pol-manage');
    const { item } = await drive(
      h,
      plugin,
      'reconcile',
      deployItem('pm', v2([entry(configMap('pol-manage', { a: 'mine' }))])),
    );
    const cm = await read(h.target, GVK.ConfigMap, NS, 'pol-manage');
    expect(cm.data).toEqual({ a: 'mine' });
    expect(cm.metadata.labels).toEqual({ [MANAGED_BY_LABEL]: 'pm' });
    expect(managedNames(item)).toEqual(['manage:pol-manage']);
  });

  it('fallback leaves an object of someone else alone, creates a missing one, updates its own', async () => {
    await preexisting('fb-foreign', { [MANAGED_BY_LABEL]: 'other-item' });
    const config = (v: string): unknown =>
      v2([
        entry(configMap('fb-foreign', { a: v }), 'fallback'),
        entry(configMap('fb-new', { a: v }), 'fallback'),
      ]);
    const first = await drive(h, plugin, 'reconcile', deployItem('fb', config('1')));
    expect((await read(h.target, GVK.ConfigMap, NS, 'fb-foreign')).data).toEqual({ a: 'theirs', extra: 'x' });
    expect((await read(h.target, GVK.ConfigMap, NS, 'fb-new')).data).toEqual({ a: '1' });
    expect(managedNames(first.item)).toEqual(['fallback:fb-new']);
    const second = await drive(h, plugin, 'reconcile', nextJob(first.item, config('2')));
    expect((await read(h.target, GVK.ConfigMap, NS, 'fb-new')).data).toEqual({ a: '2' });
    expect((await read(h.target, GVK.ConfigMap, NS, 'fb-foreign')).data).toEqual({ a: 'theirs', extra: 'x' });
    // uninstall: only its own object goes
    const gone = await drive(h, plugin, 'delete', second.item);
    expect(gone.results.at(-1)?.kind).toBe('done');
    expect(await read(h.target, GVK.ConfigMap, NS, 'fb-new')).toBeUndefined();
    expect(await read(h.target, GVK.ConfigMap, NS, 'fb-foreign')).toBeDefined();
  });

  it('a fallback object another item took over meanwhile is not deleted on uninstall', async () => {
    const first = await drive(
      h,
      plugin,
      'reconcile',
      deployItem('fb2', v2([entry(configMap('fb-taken', { a: '1' }), 'fallback')])),
    );
    await h.target.mergePatch(
      GVK.ConfigMap,
      { namespace: NS, name: 'fb-taken' },
      {
        metadata: { labels: { [MANAGED_BY_LABEL]: 'thief' } },
      },
    );
    expect((await drive(h, plugin, 'delete', first.item)).results.at(-1)?.kind).toBe('done');
    expect(await read(h.target, GVK.ConfigMap, NS, 'fb-taken')).toBeDefined();
  });

  it('immutable creates once, never updates, and is deleted on uninstall', async () => {
    const first = await drive(
      h,
      plugin,
      'reconcile',
      deployItem('imm', v2([entry(configMap('imm', { a: '1' }), 'immutable')])),
    );
    const second = await drive(
      h,
      plugin,
      'reconcile',
      nextJob(first.item, v2([entry(configMap('imm', { a: '2' }), 'immutable')])),
    );
    expect((await read(h.target, GVK.ConfigMap, NS, 'imm')).data).toEqual({ a: '1' });
    expect(managedNames(second.item)).toEqual(['immutable:imm']);
    expect((await drive(h, plugin, 'delete', second.item)).results.at(-1)?.kind).toBe('done');
    expect(await read(h.target, GVK.ConfigMap, NS, 'imm')).toBeUndefined();
  });

  it('ignore neither creates, updates nor deletes; keep survives the uninstall', async () => {
    await preexisting('ign-existing');
    const config = v2([
      entry(configMap('ign-existing', { a: 'mine' }), 'ignore'),
      entry(configMap('ign-missing', { a: 'mine' }), 'ignore'),
      entry(configMap('kept', { a: 'mine' }), 'keep'),
      entry(configMap('managed', { a: 'mine' })),
    ]);
    const { item } = await drive(h, plugin, 'reconcile', deployItem('ign', config));
    expect((await read(h.target, GVK.ConfigMap, NS, 'ign-existing')).data).toEqual({
      a: 'theirs',
      extra: 'x',
    });
    expect(await read(h.target, GVK.ConfigMap, NS, 'ign-missing')).toBeUndefined();
    expect(managedNames(item)).toEqual(['keep:kept', 'manage:managed']);
    expect((await drive(h, plugin, 'delete', item)).results.at(-1)?.kind).toBe('done');
    expect(await read(h.target, GVK.ConfigMap, NS, 'kept')).toBeDefined();
    expect(await read(h.target, GVK.ConfigMap, NS, 'managed')).toBeUndefined();
    expect(await read(h.target, GVK.ConfigMap, NS, 'ign-existing')).toBeDefined();
  });

  it('an object switched from manage to ignore is left in place (not deleted as dropped)', async () => {
    const first = await drive(
      h,
      plugin,
      'reconcile',
      deployItem('sw', v2([entry(configMap('switched', { a: '1' }))])),
    );
    const second = await drive(
      h,
      plugin,
      'reconcile',
      nextJob(first.item, v2([entry(configMap('switched', { a: '2' }), 'ignore')])),
    );
    expect(second.results.at(-1)?.kind).toBe('done');
    expect((await read(h.target, GVK.ConfigMap, NS, 'switched')).data).toEqual({ a: '1' });
    expect(managedNames(second.item)).toEqual([]);
  });
});

describe('update strategies on an object that has more than the manifest', () => {
  const manifest = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: '', namespace: NS, labels: { app: 'demo' } },
    data: { a: 'mine', b: 'new' },
  };

  it.each([
    // update and patch make the object the manifest (keys only the cluster had are gone)
    ['update', { a: 'mine', b: 'new' }, { app: 'demo' }, undefined],
    ['patch', { a: 'mine', b: 'new' }, { app: 'demo' }, undefined],
    // merge only adds what is missing; mergeOverwrite lets the manifest win; both keep the rest
    ['merge', { a: 'theirs', b: 'new', extra: 'x' }, { app: 'demo', owner: 'someone' }, { note: 'theirs' }],
    [
      'mergeOverwrite',
      { a: 'mine', b: 'new', extra: 'x' },
      { app: 'demo', owner: 'someone' },
      { note: 'theirs' },
    ],
  ])('%s', async (strategy, data, labels, annotations) => {
    const name = `strategy-${strategy.toLowerCase()}`;
    await preexisting(name);
    const config = v2([entry({ ...manifest, metadata: { ...manifest.metadata, name } })], {
      updateStrategy: strategy,
    });
    const { results } = await drive(h, plugin, 'reconcile', deployItem(name, config));
    expect(results.at(-1)?.kind).toBe('done');
    const cm = await read(h.target, GVK.ConfigMap, NS, name);
    expect(cm.data).toEqual(data);
    expect(cm.metadata.labels).toEqual({ ...labels, [MANAGED_BY_LABEL]: name });
    expect(cm.metadata.annotations).toEqual(annotations);
  });

  it('update keeps what an update must carry over (a Service clusterIP)', async () => {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc', namespace: NS },
      spec: { ports: [{ port: 80 }], selector: { app: 'x' } },
    };
    const first = await drive(h, plugin, 'reconcile', deployItem('svc', v2([entry(svc)])));
    const ip = (await read(h.target, GVK.Service, NS, 'svc')).spec.clusterIP;
    const changed = { ...svc, spec: { ...svc.spec, ports: [{ port: 8080 }] } };
    const second = await drive(h, plugin, 'reconcile', nextJob(first.item, v2([entry(changed)])));
    expect(second.results.at(-1)?.kind).toBe('done');
    const now = await read(h.target, GVK.Service, NS, 'svc');
    expect(now.spec.ports[0].port).toBe(8080);
    expect(now.spec.clusterIP).toBe(ip);
  });
});
