/**
 * The manifest deployer under the deployer host (shared/deployer/host/run.ts) against the
 * embedded API server: a Context and a Target on the host cluster, items whose job was started
 * (status.jobID), and a driver that runs the step for every requeue the runtime asks for.
 */
import { GVK } from '../../../shared/api/gvk.js';
import type { DeployItem } from '../../../shared/api/landscaper.js';
import { reconcileItem, type ItemRef, type RuntimeDeps } from '../../../shared/deployer/host/run.js';
import type { Locker } from '../../../shared/lock/index.js';
import { createLogger } from '../../../shared/log/index.js';
import { createManifestDeployer } from '../../../functions/deployer-manifest/deployer.js';
import { NS, type Harness } from './harness.js';

const locker: Locker = {
  prefix: 'manifest',
  owner: 'test',
  acquire: () => Promise.resolve({ locked: true }),
  release: () => Promise.resolve(),
  withLock: async (_t, fn) => ({ locked: true, value: await fn() }),
};

export interface RuntimeHarness {
  /** The requeues the last step asked for. */
  requeues: ItemRef[];
  createItem(name: string, config: unknown, timeout?: string): Promise<ItemRef>;
  getItem(ref: ItemRef): Promise<DeployItem>;
  /**
   * Runs the step for every requeue of `ref` until `until` holds or `max` steps are done; the item
   * as it is then (as it was before the step that deleted it).
   */
  steps(ref: ItemRef, max: number, until?: (i: DeployItem) => boolean): Promise<DeployItem>;
  /** The deployer's clock from now on stands at `at` (a whole second: metav1.Time has no fraction). */
  freeze(at: Date): void;
  /** Moves a frozen clock on. */
  advance(ms: number): void;
}

export async function runtimeHarness(h: Harness): Promise<RuntimeHarness> {
  await h.host.create(GVK.Context, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'Context',
    metadata: { name: 'default', namespace: NS },
  });
  await h.host.create(GVK.Target, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'Target',
    metadata: { name: 'tgt', namespace: NS },
    spec: { type: 'landscaper.gardener.cloud/kubernetes-cluster', config: { kubeconfig: 'unused' } },
  });
  let frozen: number | undefined;
  const now = (): Date => new Date(frozen ?? Date.now());
  const rh: RuntimeHarness = {
    freeze: (at) => {
      frozen = at.getTime();
    },
    advance: (ms) => {
      if (frozen === undefined) throw new Error('advance: the clock is not frozen');
      frozen += ms;
    },
    requeues: [],
    createItem: async (name, config, timeout) => {
      const item = await h.host.create<DeployItem>(GVK.DeployItem, {
        apiVersion: 'landscaper.gardener.cloud/v1alpha1',
        kind: 'DeployItem',
        metadata: { name, namespace: NS },
        spec: {
          type: 'landscaper.gardener.cloud/kubernetes-manifest',
          target: { name: 'tgt' },
          config: config as never,
          ...(timeout ? { timeout } : {}),
        },
      });
      await h.host.mergePatch(
        GVK.DeployItem,
        { namespace: NS, name },
        { status: { jobID: 'job-1', observedGeneration: 0 } },
        { subresource: 'status' },
      );
      return { namespace: NS, name, uid: item.metadata?.uid };
    },
    getItem: (ref) => h.host.get<DeployItem>(GVK.DeployItem, NS, ref.name),
    steps: async (ref, max, until) => {
      let item = await rh.getItem(ref);
      for (let i = 0; i < max; i++) {
        rh.requeues = [];
        if ((await reconcileItem(deps(h, rh, now), ref)) === 'deleted') return item;
        item = await rh.getItem(ref);
        if (until?.(item) || !rh.requeues.some((r) => r.name === ref.name)) return item;
        await new Promise((r) => setTimeout(r, 50));
      }
      return item;
    },
  };
  return rh;
}

function deps(h: Harness, rh: RuntimeHarness, now: () => Date): RuntimeDeps {
  return {
    plugin: createManifestDeployer({ requeueAfterMs: 50 }),
    host: h.host,
    locker,
    requeue: (ref) => {
      rh.requeues.push(ref);
      return Promise.resolve();
    },
    targetClient: () => Promise.resolve(h.target),
    hooks: {},
    deployer: { identity: 'test', name: 'manifest', version: 'test' },
    now,
    newId: () => 'new-job',
    log: createLogger({ name: 'test', level: 'error' }),
    lockRetryMs: 50,
  };
}
