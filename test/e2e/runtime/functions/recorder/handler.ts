/**
 * recorder: a test function for the runtime's end-to-end tests (not a product function). For a
 * ConfigMap's `ref.add` event it reads the ConfigMap, records when it started and ended in Redis
 * (`recorder:started`, `recorder:done`), waits `data.delayMs` (to keep a replica busy), requeues
 * the ConfigMap for itself after `data.requeueAfterMs` when asked, and annotates the ConfigMap
 * `e2e.landscape.dev/handled-by: <pod>`. A `dev.landscape.requeue` event is recorded with its
 * arrival time (`recorder:requeued`). Everything comes from the environment of the replica.
 */
import * as ff from '@google-cloud/functions-framework';
import { GVK } from '../../../../../shared/api/gvk.js';
import { lazyRedis, type RedisHandle } from '../../../../../shared/redis/index.js';
import {
  createKubeClient,
  isNotFound,
  kubeConfigFromEnv,
  type KubeClient,
} from '../../../../../shared/kube/index.js';
import { requeue } from '../../../../../shared/requeue/index.js';

export const FUNCTION_NAME = 'recorder';

interface Deps {
  redis: RedisHandle;
  kube: KubeClient;
  pod: string;
}

let deps: Deps | undefined;
function depsOf(env: NodeJS.ProcessEnv): Deps {
  deps ??= {
    redis: lazyRedis({ url: env.REDIS_URL ?? '', connectionName: FUNCTION_NAME }),
    kube: createKubeClient(kubeConfigFromEnv(env.KUBECONFIG ?? ''), { fieldManager: FUNCTION_NAME }),
    pod: env.POD_NAME ?? 'unknown',
  };
  return deps;
}

interface Event {
  id: string;
  type: string;
  name?: string;
  namespace?: string;
  data?: { dueAt?: string };
}

interface ConfigMap {
  metadata: { name: string; namespace: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

async function onAdd(d: Deps, ce: Event): Promise<void> {
  const redis = await d.redis.get();
  let cm: ConfigMap;
  try {
    cm = await d.kube.get<ConfigMap>(GVK.ConfigMap, ce.namespace, ce.name ?? '');
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
  const record = { id: ce.id, name: cm.metadata.name, pod: d.pod, start: Date.now() };
  await redis.rpush('recorder:started', JSON.stringify(record));
  const delayMs = Number(cm.data?.delayMs ?? 0);
  if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
  const after = Number(cm.data?.requeueAfterMs ?? 0);
  if (after > 0) {
    const at = new Date(Date.now() + after);
    await requeue(redis, {
      target: FUNCTION_NAME,
      kind: 'ConfigMap',
      namespace: cm.metadata.namespace,
      name: cm.metadata.name,
      at,
    });
  }
  await d.kube.mergePatch(
    GVK.ConfigMap,
    { namespace: cm.metadata.namespace, name: cm.metadata.name },
    { metadata: { annotations: { 'e2e.landscape.dev/handled-by': d.pod } } },
  );
  await redis.rpush('recorder:done', JSON.stringify({ ...record, end: Date.now() }));
}

async function onRequeue(d: Deps, ce: Event): Promise<void> {
  const redis = await d.redis.get();
  const entry = {
    id: ce.id,
    name: ce.name,
    dueAt: ce.data?.dueAt,
    arrivedAt: new Date().toISOString(),
    pod: d.pod,
  };
  await redis.rpush('recorder:requeued', JSON.stringify(entry));
}

export async function recorder(ce: Event): Promise<void> {
  const d = depsOf(process.env);
  if (ce.type === 'dev.landscape.requeue') await onRequeue(d, ce);
  else await onAdd(d, ce);
}

ff.cloudEvent(FUNCTION_NAME, (ce: unknown) => recorder(ce as Event));
