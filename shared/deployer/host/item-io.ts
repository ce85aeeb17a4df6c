/**
 * The deployer host's reads and writes around a DeployItem: the item, its status (one merge
 * patch, only when changed), the finalizer, its Target and Target client, its Context, Events.
 */
import { GVK } from '../../api/gvk.js';
import {
  DEFAULT_CONTEXT_NAME,
  KUBERNETES_CLUSTER_TARGET_TYPE,
  LANDSCAPER_FINALIZER,
  LandscaperAnnotations,
  type DeployItem,
  type DeployItemStatus,
  type Target,
} from '../../api/landscaper.js';
import {
  isNotFound,
  isTargetSecretMissing,
  TargetKubeconfigError,
  type KubeClient,
} from '../../kube/index.js';
import {
  contextError,
  invalidTargetError,
  missingTargetError,
  targetSecretMissingError,
  statusChanged,
  type ItemEvent,
} from '../index.js';
import { key, refOf, type ItemRef, type RuntimeDeps } from './deps.js';
import { recordItemEvent } from './events.js';
import { statusMergePatch } from './patch.js';

export async function readItem(host: KubeClient, ref: ItemRef): Promise<DeployItem | undefined> {
  try {
    const item = await host.get<DeployItem>(GVK.DeployItem, ref.namespace, ref.name);
    if (ref.uid && item.metadata?.uid !== ref.uid) return undefined;
    return item;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function writeStatus(
  deps: RuntimeDeps,
  item: DeployItem,
  status: DeployItemStatus,
): Promise<DeployItem> {
  if (!statusChanged(item.status, status)) return item;
  const ref = { namespace: item.metadata?.namespace, name: item.metadata?.name ?? '' };
  return deps.host.patchStatus<DeployItem>(GVK.DeployItem, ref, statusMergePatch(item.status, status));
}

/** Adds or removes the Landscaper finalizer; optimistic (resourceVersion), a conflict is retried by the caller. */
export async function setFinalizer(
  deps: RuntimeDeps,
  item: DeployItem,
  present: boolean,
): Promise<DeployItem> {
  const current = item.metadata?.finalizers ?? [];
  const has = current.includes(LANDSCAPER_FINALIZER);
  if (has === present) return item;
  const finalizers = present
    ? [...current, LANDSCAPER_FINALIZER]
    : current.filter((f) => f !== LANDSCAPER_FINALIZER);
  return deps.host.mergePatch<DeployItem>(
    GVK.DeployItem,
    { namespace: item.metadata?.namespace, name: item.metadata?.name ?? '' },
    { metadata: { finalizers, resourceVersion: item.metadata?.resourceVersion } },
  );
}

export async function readTarget(
  deps: RuntimeDeps,
  item: DeployItem,
  deleting: boolean,
): Promise<Target | undefined> {
  const name = item.spec.target?.name;
  if (!name) return undefined;
  const namespace = item.spec.target?.namespace ?? item.metadata?.namespace;
  try {
    return await deps.host.get<Target>(GVK.Target, namespace, name);
  } catch (err) {
    if (isNotFound(err)) throw missingTargetError(deleting);
    throw err;
  }
}

export async function targetClientOf(
  deps: RuntimeDeps,
  target: Target | undefined,
  deleting: boolean,
): Promise<KubeClient | undefined> {
  if (!target || target.spec.type !== KUBERNETES_CLUSTER_TARGET_TYPE) return undefined;
  try {
    return await deps.targetClient(target);
  } catch (err) {
    // a Secret (or key) that does not exist yet is retried (Progressing); a refused Target is final
    if (isTargetSecretMissing(err)) throw targetSecretMissingError((err as Error).message, deleting);
    if (err instanceof TargetKubeconfigError) throw invalidTargetError(err.message, deleting);
    throw err;
  }
}

export async function checkContext(deps: RuntimeDeps, item: DeployItem, deleting: boolean): Promise<void> {
  const name = item.spec.context || DEFAULT_CONTEXT_NAME;
  try {
    await deps.host.getMetadata(GVK.Context, item.metadata?.namespace, name);
  } catch (err) {
    throw contextError(name, isNotFound(err) ? 'not found' : String(err), deleting);
  }
}

export function withoutUninstall(item: DeployItem): boolean {
  return item.metadata?.annotations?.[LandscaperAnnotations.deleteWithoutUninstall] === 'true';
}

export async function recordEvent(deps: RuntimeDeps, item: DeployItem, event: ItemEvent): Promise<void> {
  try {
    await recordItemEvent(deps.host, item, event, {
      component: deps.deployer.name,
      now: deps.now(),
      newId: deps.newId,
    });
  } catch (err) {
    deps.log.warn('cannot record the Event', {
      deployItem: key(refOf(item)),
      reason: event.reason,
      error: String(err),
    });
  }
}
