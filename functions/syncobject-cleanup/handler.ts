/**
 * syncobject-cleanup: on a PingSource tick, deletes the SyncObjects whose object is gone or was
 * recreated (a different UID), as upstream's periodic cleanup (shared/lock/cleanup.ts: metadata-only
 * reads of the locked objects, deletes with uid/resourceVersion preconditions, unknown kinds
 * skipped with an error log). Where the deployers are Pods (POD_NAMESPACE set, the deployers in the
 * same namespace), a lock held for over 30 s by a Pod that is gone (a replica killed between
 * finishing its item and unlocking it) is unlocked too. Config: CONFIG_FILE (YAML) with a
 * LOG_LEVEL override (./config.ts).
 */
import * as ff from '@google-cloud/functions-framework';
import {
  createInstance,
  hostKubeClient,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import type { KubeClient } from '../../shared/kube/index.js';
import {
  cleanupSyncObjects,
  podLiveness,
  type CleanupCounts,
  type Liveness,
} from '../../shared/lock/index.js';
import { FUNCTION_NAME, loadConfig, type CleanupConfig } from './config.js';
import { podIdentity } from '../../shared/function/pod.js';

export { FUNCTION_NAME } from './config.js';

interface CleanupDeps {
  client: KubeClient;
  /** The deployers' Pods, in this function's namespace; undefined off Kubernetes (no unlocking). */
  liveness?: Liveness;
}

export function createCleanupInstance(
  opts: InstanceOptions = {},
): FunctionInstance<CleanupConfig, CleanupDeps> {
  return createInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ env }) => {
        const client = hostKubeClient(env, FUNCTION_NAME);
        const namespace = podIdentity(env).podNamespace;
        return { client, ...(namespace ? { liveness: podLiveness(client, namespace) } : {}) };
      },
    },
    opts,
  );
}

/** One tick: the counts (tests); undefined when the config is bad. */
export async function runCleanupTick(
  instance: FunctionInstance<CleanupConfig, CleanupDeps>,
): Promise<CleanupCounts | undefined> {
  const r = await instance.ready();
  const counts = await cleanupSyncObjects(r.deps.client, {
    log: r.log,
    ...(r.deps.liveness ? { liveness: r.deps.liveness } : {}),
    ...(r.config.namespace ? { namespace: r.config.namespace } : {}),
    ...(r.config.prefix ? { prefix: r.config.prefix } : {}),
  });
  if (counts.deleted > 0 || counts.unlocked > 0 || counts.failed > 0 || counts.skipped > 0)
    r.log.info('SyncObjects cleaned up', { ...counts });
  return counts;
}

export const instance = createCleanupInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const syncobjectCleanup = async (): Promise<void> => {
  await runCleanupTick(instance);
};

ff.cloudEvent(FUNCTION_NAME, syncobjectCleanup);
ff.cloudEvent('syncobjectCleanup', syncobjectCleanup);
