/**
 * The SyncObject locker against the embedded API server, owners identified by Pods
 * (POD_NAME/POD_NAMESPACE): contention, release without delete, take-over of dead owners on the
 * next try, and races on create and on take-over.
 */
import { startApiServer } from '@landscape/kube-apiserver';
import type { ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml } from '../../../shared/kube/index.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import type { Locker, LockTarget } from '../../../shared/lock/index.js';
import {
  createLocker,
  lockOwner,
  livenessFor,
  podLiveness,
  syncObjectName,
} from '../../../shared/lock/index.js';
import { configMapTarget, createPod, deployItemTarget, ensureNamespace, readSyncObject } from './support.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'lock-objects';
const POD_NS = 'fn-system';

let srv: ApiServer;
let client: KubeClient;

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'] });
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()), {
    fieldManager: 'lock-test',
  });
  await ensureNamespace(client, NS);
  await ensureNamespace(client, POD_NS);
});

afterAll(async () => {
  await srv?.stop();
});

function lockerFor(owner: string, prefix = 'mock'): Locker {
  const who = lockOwner({ POD_NAME: owner, POD_NAMESPACE: POD_NS });
  return createLocker({ client, prefix, owner: who.owner, liveness: livenessFor(who, { client }) });
}

describe('two replicas contend for one object', () => {
  let target: LockTarget;
  const a = (): Locker => lockerFor('mock-a');
  const b = (): Locker => lockerFor('mock-b');

  beforeAll(async () => {
    await createPod(client, POD_NS, 'mock-a');
    await createPod(client, POD_NS, 'mock-b');
    target = await deployItemTarget(client, NS, 'contended');
  });

  it('exactly one wins; the other gets it after release; release never deletes', async () => {
    const la = a();
    const lb = b();
    const results = await Promise.all([la.acquire(target), lb.acquire(target)]);
    expect(results.filter((r) => r.locked)).toHaveLength(1);
    const [winner, loser] = results[0].locked ? [la, lb] : [lb, la];

    const so = await readSyncObject(client, NS, `mock-${target.uid}`);
    expect(so.metadata?.name).toBe(syncObjectName('mock', target.uid));
    expect(so.spec).toMatchObject({
      podName: winner.owner,
      kind: 'DeployItem',
      name: 'contended',
      prefix: 'mock',
    });

    expect(await loser.acquire(target)).toEqual({ locked: false, reason: `locked by ${winner.owner}` });
    await winner.release(target);
    const released = await readSyncObject(client, NS, `mock-${target.uid}`);
    expect(released.spec.podName).toBe('');
    expect(released.metadata?.uid).toBe(so.metadata?.uid);

    expect(await loser.acquire(target)).toEqual({ locked: true, reason: 'taken over: unlocked' });
    expect(await winner.acquire(target)).toEqual({ locked: false, reason: `locked by ${loser.owner}` });
    await loser.release(target);
  });

  it('another controller (prefix) locks the same object independently', async () => {
    const mock = a();
    const manifest = lockerFor('mock-b', 'manifest');
    expect((await mock.acquire(target)).locked).toBe(true);
    expect((await manifest.acquire(target)).locked).toBe(true);
    expect((await readSyncObject(client, NS, `manifest-${target.uid}`)).spec.podName).toBe('mock-b');
    await mock.release(target);
    await manifest.release(target);
  });
});

describe('dead owners are taken over on the next try', () => {
  it('the owner Pod was deleted', async () => {
    await createPod(client, POD_NS, 'short-lived');
    await createPod(client, POD_NS, 'survivor');
    const target = await configMapTarget(client, NS, 'owner-pod-deleted');
    const dying = lockerFor('short-lived');
    const survivor = lockerFor('survivor');
    expect((await dying.acquire(target)).locked).toBe(true);
    expect((await survivor.acquire(target)).locked).toBe(false);

    await client.delete(GVK.Pod, { namespace: POD_NS, name: 'short-lived' });
    expect(await survivor.acquire(target)).toEqual({
      locked: true,
      reason: 'taken over: owner short-lived is gone',
    });
    expect((await readSyncObject(client, NS, `mock-${target.uid}`)).spec.podName).toBe('survivor');

    // The dead owner's late unlock does not unlock the new owner.
    await dying.release(target);
    expect((await readSyncObject(client, NS, `mock-${target.uid}`)).spec.podName).toBe('survivor');
  });

  it('the owner Pod is being deleted (deletionTimestamp)', async () => {
    await createPod(client, POD_NS, 'terminating', ['example.com/hold']);
    await createPod(client, POD_NS, 'heir');
    const target = await configMapTarget(client, NS, 'owner-pod-terminating');
    expect((await lockerFor('terminating').acquire(target)).locked).toBe(true);
    expect((await lockerFor('heir').acquire(target)).locked).toBe(false);

    await client.delete(GVK.Pod, { namespace: POD_NS, name: 'terminating' });
    const pod = await client.getMetadata(GVK.Pod, POD_NS, 'terminating');
    expect(pod.metadata.deletionTimestamp).toBeDefined();
    expect((await lockerFor('heir').acquire(target)).locked).toBe(true);
  });

  it('a live owner is not taken over, whoever asks', async () => {
    await createPod(client, POD_NS, 'alive');
    const target = await configMapTarget(client, NS, 'owner-alive');
    expect((await lockerFor('alive').acquire(target)).locked).toBe(true);
    for (const other of ['x1', 'x2', 'x3']) {
      expect(await lockerFor(other).acquire(target)).toEqual({ locked: false, reason: 'locked by alive' });
    }
    expect((await readSyncObject(client, NS, `mock-${target.uid}`)).spec.podName).toBe('alive');
  });

  it('podLiveness reads the Pod in its own namespace, not the object namespace', async () => {
    await createPod(client, NS, 'wrong-namespace');
    expect(await podLiveness(client, NS).isAlive('wrong-namespace')).toBe(true);
    expect(await podLiveness(client, POD_NS).isAlive('wrong-namespace')).toBe(false);
  });
});

describe('races: 20 concurrent acquires, exactly one locked', () => {
  const owners = Array.from({ length: 20 }, (_, i) => `racer-${i}`);

  beforeAll(async () => {
    for (const o of owners) await createPod(client, POD_NS, o);
  });

  async function race(target: LockTarget): Promise<string[]> {
    const lockers = owners.map((o) => lockerFor(o));
    const results = await Promise.all(lockers.map((l) => l.acquire(target)));
    return lockers.filter((_, i) => results[i].locked).map((l) => l.owner);
  }

  it('on create (no SyncObject yet: AlreadyExists for the losers)', async () => {
    const target = await configMapTarget(client, NS, 'race-create');
    const winners = await race(target);
    expect(winners).toHaveLength(1);
    expect((await readSyncObject(client, NS, `mock-${target.uid}`)).spec.podName).toBe(winners[0]);
  });

  it('on take-over of an unlocked SyncObject (Conflict for the losers)', async () => {
    const target = await configMapTarget(client, NS, 'race-unlocked');
    const first = lockerFor('racer-0');
    await first.acquire(target);
    await first.release(target);
    const winners = await race(target);
    expect(winners).toHaveLength(1);
    expect((await readSyncObject(client, NS, `mock-${target.uid}`)).spec.podName).toBe(winners[0]);
  });

  it('on take-over from a dead owner', async () => {
    await createPod(client, POD_NS, 'doomed');
    const target = await configMapTarget(client, NS, 'race-dead-owner');
    expect((await lockerFor('doomed').acquire(target)).locked).toBe(true);
    await client.delete(GVK.Pod, { namespace: POD_NS, name: 'doomed' });
    const winners = await race(target);
    expect(winners).toHaveLength(1);
    expect((await readSyncObject(client, NS, `mock-${target.uid}`)).spec.podName).toBe(winners[0]);
  });
});

describe('names that cannot exist', () => {
  it('a UID that makes the name longer than 253 characters is a clear error, nothing is written', async () => {
    const long = lockerFor('mock-a', 'p'.repeat(200));
    const target: LockTarget = { kind: 'ConfigMap', name: 'x', namespace: NS, uid: 'u'.repeat(60) };
    await expect(long.acquire(target)).rejects.toMatchObject({
      name: 'SyncObjectNameError',
      transient: false,
      message: expect.stringContaining('no more than 253 characters'),
    });
    const list = await client.list(GVK.SyncObject, NS);
    expect(list.items.some((so) => so.metadata?.name?.startsWith('p'.repeat(200)))).toBe(false);
  });
});
