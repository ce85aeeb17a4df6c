/**
 * The SyncObject cleanup routine against the embedded API server: SyncObjects of gone or
 * recreated objects are deleted, others kept, unknown kinds skipped with an error log; a
 * SyncObject changed between list and delete survives (delete preconditions).
 */
import { startApiServer } from '@landscape/kube-apiserver';
import type { ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import type { SyncObject } from '../../../shared/api/landscaper.js';
import { createKubeClient, isNotFound, kubeConfigFromYaml } from '../../../shared/kube/index.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import type { CleanupClient, Liveness, Locker, LockTarget } from '../../../shared/lock/index.js';
import { cleanupSyncObjects, createLocker, newSyncObject } from '../../../shared/lock/index.js';
import {
  configMapTarget,
  deployItemTarget,
  ensureNamespace,
  readSyncObject,
  recordingLogger,
} from './support.js';
import { crdFiles } from '../../../shared/api/crds.js';

let srv: ApiServer;
let client: KubeClient;

const alwaysAlive: Liveness = { isAlive: () => Promise.resolve(true) };

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'] });
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()), {
    fieldManager: 'lock-test',
  });
});

afterAll(async () => {
  await srv?.stop();
});

function locker(prefix = 'mock', owner = 'fn-a'): Locker {
  return createLocker({ client, prefix, owner, liveness: alwaysAlive });
}

async function names(namespace: string): Promise<string[]> {
  const list = await client.list<SyncObject>(GVK.SyncObject, namespace);
  return list.items.map((so) => so.metadata!.name!).sort();
}

async function exists(namespace: string, name: string): Promise<boolean> {
  try {
    await readSyncObject(client, namespace, name);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** The test's client for the cleanup, with some of its calls replaced. */
function cleanupClient(overrides: Partial<CleanupClient>): CleanupClient {
  return {
    list: (gvk, namespace, options) => client.list(gvk, namespace, options),
    listMetadata: (gvk, namespace, options) => client.listMetadata(gvk, namespace, options),
    getMetadata: (gvk, namespace, name) => client.getMetadata(gvk, namespace, name),
    delete: (gvk, ref, options) => client.delete(gvk, ref, options),
    replace: (gvk, object, options) => client.replace(gvk, object, options),
    ...overrides,
  };
}

describe('cleanupSyncObjects', () => {
  const NS = 'cleanup-a';

  it('deletes for gone and recreated objects, keeps the others, skips unknown kinds', async () => {
    await ensureNamespace(client, NS);
    const live = await deployItemTarget(client, NS, 'live');
    const gone = await deployItemTarget(client, NS, 'gone');
    const old = await configMapTarget(client, NS, 'recreated');
    for (const t of [live, gone, old]) expect((await locker().acquire(t)).locked).toBe(true);
    await locker().release(live);

    await client.delete(GVK.DeployItem, { namespace: NS, name: 'gone' });
    await client.delete(GVK.ConfigMap, { namespace: NS, name: 'recreated' });
    const renewed = await configMapTarget(client, NS, 'recreated');
    expect(renewed.uid).not.toBe(old.uid);
    expect((await locker().acquire(renewed)).locked).toBe(true);

    const gizmo: LockTarget = { kind: 'Gizmo', name: 'g', namespace: NS, uid: 'g-uid' };
    await client.create<SyncObject>(
      GVK.SyncObject,
      newSyncObject({ name: 'mock-g-uid', prefix: 'mock', target: gizmo, owner: '', now: new Date() }),
    );

    const { log, lines } = recordingLogger('cleanup');
    const counts = await cleanupSyncObjects(client, { namespace: NS, log });

    expect(counts).toEqual({ checked: 5, deleted: 2, kept: 2, unlocked: 0, skipped: 1, failed: 0 });
    expect(await names(NS)).toEqual([`mock-${live.uid}`, `mock-${renewed.uid}`, 'mock-g-uid'].sort());
    expect(lines.filter((l) => l.level === 'error')).toEqual([
      expect.objectContaining({
        msg: 'SyncObject skipped by cleanup',
        kind: 'Gizmo',
        error: 'unknown kind Gizmo',
      }),
    ]);
    expect(
      lines
        .filter((l) => l.msg === 'deleted SyncObject')
        .map((l) => l.reason)
        .sort(),
    ).toEqual(['object gone', 'object recreated']);

    // A second run finds nothing more to do.
    expect(await cleanupSyncObjects(client, { namespace: NS, log })).toEqual({
      checked: 3,
      deleted: 0,
      kept: 2,
      unlocked: 0,
      skipped: 1,
      failed: 0,
    });
  });

  it('where a page locks listAt or more objects of a kind in a namespace: one metadata list there instead of a read each, the same outcomes', async () => {
    const ns = 'cleanup-list';
    await ensureNamespace(client, ns);
    const live = await configMapTarget(client, ns, 'live');
    const gone = await configMapTarget(client, ns, 'gone');
    const old = await configMapTarget(client, ns, 'recreated');
    const item = await deployItemTarget(client, ns, 'item'); // alone of its kind: read
    for (const t of [live, gone, old, item]) expect((await locker().acquire(t)).locked).toBe(true);
    await client.delete(GVK.ConfigMap, { namespace: ns, name: 'gone' });
    await client.delete(GVK.ConfigMap, { namespace: ns, name: 'recreated' });
    await configMapTarget(client, ns, 'recreated');
    const calls: string[] = [];
    const counting = cleanupClient({
      listMetadata: (gvk, namespace, options) => {
        calls.push(`list ${gvk.kind} ${namespace}`);
        return client.listMetadata(gvk, namespace, options);
      },
      getMetadata: (gvk, namespace, name) => {
        calls.push(`get ${gvk.kind} ${name}`);
        return client.getMetadata(gvk, namespace, name);
      },
    });
    const { log } = recordingLogger('cleanup');
    expect(await cleanupSyncObjects(counting, { namespace: ns, log, listAt: 3 })).toEqual({
      checked: 4,
      deleted: 2,
      kept: 2,
      unlocked: 0,
      skipped: 0,
      failed: 0,
    });
    expect(calls.sort()).toEqual([`get DeployItem item`, `list ConfigMap ${ns}`]);
    expect(await names(ns)).toEqual([`mock-${item.uid}`, `mock-${live.uid}`].sort());
  });

  it('a metadata list that fails falls back to a read per SyncObject', async () => {
    const ns = 'cleanup-list-fails';
    await ensureNamespace(client, ns);
    const a = await configMapTarget(client, ns, 'a');
    const b = await configMapTarget(client, ns, 'b');
    for (const t of [a, b]) await locker().acquire(t);
    await client.delete(GVK.ConfigMap, { namespace: ns, name: 'b' });
    let reads = 0;
    const failingList = cleanupClient({
      listMetadata: () => Promise.reject(new Error('list refused')),
      getMetadata: (gvk, namespace, name) => {
        reads++;
        return client.getMetadata(gvk, namespace, name);
      },
    });
    const { log } = recordingLogger('cleanup');
    expect(await cleanupSyncObjects(failingList, { namespace: ns, log, listAt: 2 })).toMatchObject({
      deleted: 1,
      kept: 1,
      failed: 0,
    });
    expect(reads).toBe(2);
  });

  it('keeps the SyncObject of an object that is being deleted (finalizers)', async () => {
    const ns = 'cleanup-b';
    await ensureNamespace(client, ns);
    await client.create(GVK.ConfigMap, {
      metadata: { name: 'held', namespace: ns, finalizers: ['example.com/x'] },
    });
    const meta = await client.getMetadata(GVK.ConfigMap, ns, 'held');
    const target: LockTarget = { kind: 'ConfigMap', name: 'held', namespace: ns, uid: meta.metadata.uid! };
    await locker().acquire(target);
    await client.delete(GVK.ConfigMap, { namespace: ns, name: 'held' });
    const { log } = recordingLogger('cleanup');
    expect(await cleanupSyncObjects(client, { namespace: ns, log })).toMatchObject({ deleted: 0, kept: 1 });
    expect(await exists(ns, `mock-${target.uid}`)).toBe(true);
  });

  it('with a prefix, only that controller’s SyncObjects are looked at', async () => {
    const ns = 'cleanup-c';
    await ensureNamespace(client, ns);
    const t = await configMapTarget(client, ns, 'twice-locked');
    await locker('mock').acquire(t);
    await locker('manifest').acquire(t);
    await client.delete(GVK.ConfigMap, { namespace: ns, name: 'twice-locked' });
    const { log } = recordingLogger('cleanup');
    expect(await cleanupSyncObjects(client, { namespace: ns, prefix: 'manifest', log })).toMatchObject({
      checked: 1,
      deleted: 1,
    });
    expect(await names(ns)).toEqual([`mock-${t.uid}`]);
  });

  it('pages through the list and covers every namespace when none is given', async () => {
    const ns = 'cleanup-d';
    await ensureNamespace(client, ns);
    const targets: LockTarget[] = [];
    for (let i = 0; i < 5; i++) targets.push(await configMapTarget(client, ns, `paged-${i}`));
    for (const t of targets) await locker('paged').acquire(t);
    for (const t of targets.slice(0, 3)) await client.delete(GVK.ConfigMap, { namespace: ns, name: t.name });
    const { log } = recordingLogger('cleanup');
    const counts = await cleanupSyncObjects(client, { prefix: 'paged', pageSize: 2, concurrency: 2, log });
    expect(counts).toEqual({ checked: 5, deleted: 3, kept: 2, unlocked: 0, skipped: 0, failed: 0 });
    expect(await names(ns)).toEqual(
      targets
        .slice(3)
        .map((t) => `paged-${t.uid}`)
        .sort(),
    );
  });

  it('a SyncObject changed between the list and the delete is not deleted (preconditions)', async () => {
    const ns = 'cleanup-e';
    await ensureNamespace(client, ns);
    const t = await configMapTarget(client, ns, 'raced');
    await locker().acquire(t);
    await client.delete(GVK.ConfigMap, { namespace: ns, name: 'raced' });
    // Someone writes the SyncObject after the cleanup listed it (a late unlock, here).
    const racing = cleanupClient({
      getMetadata: async (gvk, namespace, name) => {
        await locker().release(t);
        return client.getMetadata(gvk, namespace, name);
      },
    });
    const { log } = recordingLogger('cleanup');
    expect(await cleanupSyncObjects(racing, { namespace: ns, log })).toMatchObject({ deleted: 0, kept: 1 });
    expect((await readSyncObject(client, ns, `mock-${t.uid}`)).spec.podName).toBe('');
    // The next run deletes it.
    expect(await cleanupSyncObjects(client, { namespace: ns, log })).toMatchObject({ deleted: 1 });
  });

  it('with a liveness, a lock of a gone owner older than the grace is unlocked; alive or fresh ones stay', async () => {
    const ns = 'cleanup-g';
    await ensureNamespace(client, ns);
    const dead = await configMapTarget(client, ns, 'dead-owner');
    const alive = await configMapTarget(client, ns, 'alive-owner');
    const fresh = await configMapTarget(client, ns, 'fresh-lock');
    await createLocker({ client, prefix: 'mock', owner: 'gone-pod', liveness: alwaysAlive }).acquire(dead);
    await createLocker({ client, prefix: 'mock', owner: 'live-pod', liveness: alwaysAlive }).acquire(alive);
    const liveness: Liveness = { isAlive: (owner) => Promise.resolve(owner !== 'gone-pod') };
    const { log, lines } = recordingLogger('cleanup');
    // a minute later: both old enough; only the gone owner's lock is given back
    const later = (): Date => new Date(Date.now() + 60_000);
    expect(await cleanupSyncObjects(client, { namespace: ns, log, liveness, now: later })).toMatchObject({
      checked: 2,
      kept: 1,
      unlocked: 1,
    });
    expect((await readSyncObject(client, ns, `mock-${dead.uid}`)).spec.podName).toBe('');
    expect((await readSyncObject(client, ns, `mock-${alive.uid}`)).spec.podName).toBe('live-pod');
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'unlocked SyncObject of a gone owner', owner: 'gone-pod' }),
    ]);
    // a lock just taken by an owner that looks gone (its Pod may lag) stays within the grace
    await createLocker({ client, prefix: 'mock', owner: 'gone-pod', liveness: alwaysAlive }).acquire(fresh);
    expect(await cleanupSyncObjects(client, { namespace: ns, log, liveness })).toMatchObject({ unlocked: 0 });
    expect((await readSyncObject(client, ns, `mock-${fresh.uid}`)).spec.podName).toBe('gone-pod');
    // without a liveness nothing is unlocked
    expect(await cleanupSyncObjects(client, { namespace: ns, log, now: later })).toMatchObject({
      unlocked: 0,
    });
  });

  it('a read that fails is counted and logged, the rest goes on', async () => {
    const ns = 'cleanup-f';
    await ensureNamespace(client, ns);
    const a = await configMapTarget(client, ns, 'fails');
    const b = await configMapTarget(client, ns, 'fine');
    await locker().acquire(a);
    await locker().acquire(b);
    const failing = cleanupClient({
      getMetadata: (gvk, namespace, name) =>
        name === 'fails' ? Promise.reject(new Error('boom')) : client.getMetadata(gvk, namespace, name),
    });
    const { log, lines } = recordingLogger('cleanup');
    expect(await cleanupSyncObjects(failing, { namespace: ns, log })).toEqual({
      checked: 2,
      deleted: 0,
      kept: 1,
      unlocked: 0,
      skipped: 0,
      failed: 1,
    });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'error', msg: 'SyncObject cleanup failed', error: 'boom' }),
    ]);
  });
});
