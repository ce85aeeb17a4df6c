/**
 * The part of gardener-apiserver's Shoot strategy the embedded API server plays for the
 * core.gardener.cloud Shoot CRD (upstream pkg/apiserver/registry/core/shoot/strategy.go,
 * mustIncreaseGeneration): on an update of the main resource, an operation annotation raises
 * `metadata.generation` and is removed by the server itself —
 * - `gardener.cloud/operation=retry` on a Shoot whose last operation `Failed`;
 * - `gardener.cloud/operation=reconcile` on a Shoot whose last operation did not fail.
 * Nothing happens while the Shoot has no last operation (as upstream). A spec change and the
 * deletion timestamp raise the generation already (objects.ts specChanged, operations.ts delete).
 *
 * Where the product differs: the credentials-rotation operations (which upstream raises the
 * generation for and leaves in place) are not handled. Who may set `spec.seedName` (the
 * `shoots/binding` subresource) is ./shoot-binding.ts.
 */
import type { KubeObject, ResourceDef } from '../api/types.js';

export const SHOOT_GROUP = 'core.gardener.cloud';
export const OPERATION_ANNOTATION = 'gardener.cloud/operation';
export const OPERATION_RETRY = 'retry';
export const OPERATION_RECONCILE = 'reconcile';

/** Whether the strategy applies: core.gardener.cloud Shoots only. */
export function isGardenerShoot(def: Pick<ResourceDef, 'group' | 'kind'>): boolean {
  return def.group === SHOOT_GROUP && def.kind === 'Shoot';
}

function lastOperationState(obj: KubeObject): string | undefined {
  const status = obj.status as { lastOperation?: { state?: unknown } } | undefined;
  const state = status?.lastOperation?.state;
  return typeof state === 'string' ? state : undefined;
}

/** Whether the operation annotation of `next` asks for a new generation (and goes away). */
export function operationRaisesGeneration(next: KubeObject): boolean {
  const state = lastOperationState(next);
  if (state === undefined) return false;
  const operation = next.metadata.annotations?.[OPERATION_ANNOTATION];
  return state === 'Failed' ? operation === OPERATION_RETRY : operation === OPERATION_RECONCILE;
}

/**
 * The Shoot to store for an update of the main resource: unchanged unless its operation annotation
 * raises the generation, then without the annotation and with generation = previous + 1. `next`
 * carries the stored status (the main resource cannot change it).
 */
export function prepareShootUpdate(def: ResourceDef, prev: KubeObject, next: KubeObject): KubeObject {
  if (!isGardenerShoot(def) || !operationRaisesGeneration(next)) return next;
  const annotations = { ...next.metadata.annotations };
  delete annotations[OPERATION_ANNOTATION];
  const metadata = { ...next.metadata, generation: (prev.metadata.generation ?? 0) + 1 };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { ...next, metadata };
}
