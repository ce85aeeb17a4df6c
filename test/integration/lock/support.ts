/** Helpers of the lock integration tests: objects to lock, Pods as owners, a log that records lines. */
import { GVK } from '../../../shared/api/gvk.js';
import type { DeployItem, SyncObject } from '../../../shared/api/landscaper.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import { createLogger } from '../../../shared/log/index.js';
import type { Logger } from '../../../shared/log/index.js';
import type { LockTarget } from '../../../shared/lock/index.js';

export async function ensureNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create(GVK.Namespace, { metadata: { name } });
}

/** A ConfigMap to lock; returns it as a LockTarget (with the UID the server gave it). */
export async function configMapTarget(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<LockTarget> {
  const cm = await client.create<{ metadata: { name: string; namespace: string; uid?: string } }>(
    GVK.ConfigMap,
    {
      metadata: { name, namespace },
    },
  );
  return { kind: 'ConfigMap', name, namespace, uid: cm.metadata.uid! };
}

export async function deployItemTarget(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<LockTarget> {
  const di = await client.create<DeployItem>(GVK.DeployItem, {
    metadata: { name, namespace },
    spec: { type: 'landscaper.gardener.cloud/mock', config: {} },
  });
  return { kind: 'DeployItem', name, namespace, uid: di.metadata!.uid! };
}

/** A Running Pod standing for a replica named `name`. */
export async function createPod(
  client: KubeClient,
  namespace: string,
  name: string,
  finalizers?: string[],
): Promise<void> {
  await client.create(GVK.Pod, {
    metadata: { name, namespace, finalizers },
    spec: { containers: [{ name: 'fn', image: 'example.invalid/fn:1' }] },
  } as never);
}

export function readSyncObject(client: KubeClient, namespace: string, name: string): Promise<SyncObject> {
  return client.get<SyncObject>(GVK.SyncObject, namespace, name);
}

/** A real JSON logger whose lines are kept for assertions. */
export function recordingLogger(name: string): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    name,
    level: 'debug',
    destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { log, lines };
}
