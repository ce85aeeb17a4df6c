/**
 * gardener-apiserver's rules for who sets a Shoot's `spec.seedName`, for the core.gardener.cloud
 * Shoot CRD of the embedded API server:
 *
 * - The `shoots/binding` subresource (pkg/apiserver/registry/core/shoot/storage/storage.go
 *   BindingREST: a Getter and an Updater, so get, update and patch) with the binding strategy
 *   (pkg/apiserver/registry/core/shoot/strategy.go shootBindingStrategy.PrepareForUpdate): the
 *   body is a whole Shoot; its status is the stored one; a `Create Pending` last operation goes
 *   away when the shoot gets its first seed; a spec change raises the generation (objects.ts).
 * - The ShootValidator admission plugin (plugin/pkg/shoot/validator/admission.go,
 *   validateScheduling), which runs for the main resource and for `binding`:
 *   - main resource: a changed `spec.seedName` is refused, "spec.seedName '<old|nil>' cannot be
 *     changed to '<new>' by patching the shoot, please use the shoots/binding subresource" (since
 *     gardener v1.144, #14919; older releases dropped the change silently in PrepareForUpdate);
 *   - both: a set seedName cannot be removed;
 *   - binding: the same seed again is refused ("update of binding rejected, shoot is already
 *     assigned to the same seed", a plain error: 500 with no reason); a move to another seed may
 *     change nothing else; a new seed must exist, must
 *     not be being deleted, must have a free slot (`status.allocatable.shoots` against the shoots
 *     counted as gardener's CalculateSeedUsage counts them) and its taints must be tolerated.
 * - pkg/api/core/validation/shoot.go: `seed name must not be empty when providing the key`; no
 *   spec change once the deletion timestamp is set.
 *
 * Where the embedded server differs: on create a seedName is accepted without the admission
 * plugin's checks (upstream checks the seed and asks the authorizer whether the user may update
 * `shoots/binding`); the seed is not required to exist for a main-resource update (upstream's
 * admission fails with an internal error first when it does not); the cloud profile's seed
 * selector, access restrictions and zones, and a move's rules on backups and the internal domain
 * (both seeds need `spec.backup` and the same internal domain), are not checked;
 * "Requested changes" lists the changed top-level spec fields, not go-test/deep's diff.
 */
import { asRecord } from '@landscape/apimachinery';
import { forbidden, invalid, StatusError, type StatusReason } from '../api/errors.js';
import { isGardenerShoot } from './shoot-strategy.js';
import type { KubeObject, ResourceDef } from '../api/types.js';

export const BINDING_SUBRESOURCE = 'binding';

/** What the binding checks read of the cluster (the stored Seeds and Shoots). */
export interface SeedLookup {
  seed(name: string): KubeObject | undefined;
  shoots(): KubeObject[];
}

/** Whether `sub` of `def` is the binding subresource (Shoots of core.gardener.cloud only). */
export function isShootBinding(def: Pick<ResourceDef, 'group' | 'kind'>, sub: string | undefined): boolean {
  return sub === BINDING_SUBRESOURCE && isGardenerShoot(def);
}

/** The discovery entry of `shoots/binding` (kind Shoot; verbs of a Getter and Updater). */
export function bindingDiscoveryEntry(def: ResourceDef): Record<string, unknown> {
  return {
    name: `${def.plural}/${BINDING_SUBRESOURCE}`,
    singularName: '',
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: ['get', 'patch', 'update'],
  };
}

function seedNameOf(shoot: KubeObject): string | undefined {
  const v = asRecord(shoot.spec).seedName;
  return typeof v === 'string' ? v : undefined;
}

const GR = { group: 'core.gardener.cloud', resource: 'shoots' };

function refuse(name: string, why: string): StatusError {
  return forbidden(GR, name, why);
}

/** A non-Status error of an admission plugin: apiserver's ErrorToAPIStatus answers 500 with no reason. */
function plainError(message: string): StatusError {
  return new StatusError(500, '' as StatusReason, message);
}

function specFieldsChanged(prev: KubeObject, next: KubeObject): string[] {
  const a = asRecord(prev.spec);
  const b = asRecord(next.spec);
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** ValidateShoot / ValidateShootSpecUpdate: an empty seedName; a spec change of a deleting shoot. */
function validateShoot(prev: KubeObject, next: KubeObject): void {
  const name = prev.metadata.name ?? '';
  const seedName = seedNameOf(next);
  if (seedName === '') {
    throw invalid('Shoot', GR.group, name, [
      {
        type: 'FieldValueInvalid',
        field: 'spec.seedName',
        value: seedName,
        detail: 'seed name must not be empty when providing the key',
      },
    ]);
  }
  const changed = specFieldsChanged(prev, next);
  if (next.metadata.deletionTimestamp && changed.length > 0) {
    const requested = changed.map((k) => `${k}: ${JSON.stringify(asRecord(next.spec)[k]) ?? '<nil>'}`);
    throw invalid('Shoot', GR.group, name, [
      {
        type: 'FieldValueForbidden',
        field: 'spec',
        detail: `cannot update shoot spec if deletion timestamp is set. Requested changes: ${requested.join(',')}`,
      },
    ]);
  }
}

/**
 * The main resource's rules for `spec.seedName` (validateScheduling, admission.Update, no
 * subresource): unchanged, or refused. Other updates pass.
 */
export function checkShootUpdate(def: ResourceDef, prev: KubeObject, next: KubeObject): void {
  if (!isGardenerShoot(def)) return;
  const before = seedNameOf(prev);
  const after = seedNameOf(next);
  const name = prev.metadata.name ?? '';
  if (before !== undefined && after === undefined)
    throw refuse(name, `spec.seedName is already set to '${before}' and cannot be changed to 'nil'`);
  validateShoot(prev, next);
  if (before !== after) {
    throw refuse(
      name,
      `spec.seedName '${before ?? 'nil'}' cannot be changed to '${after}' by patching the shoot, please use the shoots/binding subresource`,
    );
  }
}

function tolerated(seed: KubeObject, shoot: KubeObject): boolean {
  const taints = (asRecord(seed.spec).taints ?? []) as { key?: string; value?: string }[];
  const tolerations = (asRecord(shoot.spec).tolerations ?? []) as { key?: string; value?: string }[];
  if (taints.length === 0) return true;
  if (taints.length > tolerations.length) return false;
  const values = new Map(tolerations.map((t) => [t.key, t.value ?? '']));
  return taints.every((t) => values.has(t.key) && (t.value === undefined || t.value === values.get(t.key)));
}

/** CalculateSeedUsage: a shoot counts on its spec seed, and on its status seed when that differs. */
export function shootsOnSeed(shoots: KubeObject[], seedName: string): number {
  let n = 0;
  for (const s of shoots) {
    const spec = seedNameOf(s) ?? '';
    const status = asRecord(s.status).seedName;
    if (spec === seedName) n++;
    if (status === seedName && spec !== seedName) n++;
  }
  return n;
}

function allocatableShoots(seed: KubeObject): number | undefined {
  const v = asRecord(asRecord(seed.status).allocatable).shoots;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

/** The seed the shoot goes to (the scheduling constraints of validateScheduling). */
function checkSchedulingConstraints(shoot: KubeObject, seedName: string, seeds: SeedLookup): KubeObject {
  const name = shoot.metadata.name ?? '';
  const seed = seeds.seed(seedName);
  if (!seed) {
    throw new StatusError(
      500,
      'InternalError',
      `Internal error occurred: could not find referenced seed "${seedName}": seeds.core.gardener.cloud "${seedName}" not found`,
    );
  }
  if (seed.metadata.deletionTimestamp)
    throw refuse(
      name,
      `cannot schedule shoot '${name}' on seed '${seedName}' that is already marked for deletion`,
    );
  if (!tolerated(seed, shoot))
    throw refuse(name, 'forbidden to use a seed whose taints are not tolerated by the shoot');
  const allocatable = allocatableShoots(seed);
  if (allocatable !== undefined && shootsOnSeed(seeds.shoots(), seedName) >= allocatable) {
    throw refuse(
      name,
      `cannot schedule shoot '${name}' on seed '${seedName}' that already has the maximum number of shoots scheduled on it (${allocatable})`,
    );
  }
  return seed;
}

/** A move to another seed: only seedName changes. */
function checkReschedule(prev: KubeObject, next: KubeObject): void {
  const name = prev.metadata.name ?? '';
  const others = specFieldsChanged(prev, next).filter((k) => k !== 'seedName');
  if (others.length > 0) {
    throw refuse(
      name,
      'only spec.seedName can be changed using the binding subresource when the shoot is being rescheduled to a new seed',
    );
  }
}

/**
 * The Shoot to store for an update of `shoots/binding` (`incoming` carries the server's metadata
 * already): the stored status (without a `Create Pending` last operation once a first seed is
 * set), after the admission checks.
 */
export function prepareShootBinding(prev: KubeObject, incoming: KubeObject, seeds: SeedLookup): KubeObject {
  const before = seedNameOf(prev);
  const after = seedNameOf(incoming);
  const name = prev.metadata.name ?? '';
  const next: KubeObject = { ...incoming, status: prev.status };
  if (before !== undefined && after === undefined)
    throw refuse(name, `spec.seedName is already set to '${before}' and cannot be changed to 'nil'`);
  validateShoot(prev, next);
  if (before === after)
    throw plainError('update of binding rejected, shoot is already assigned to the same seed');
  if (before !== undefined) checkReschedule(prev, next);
  checkSchedulingConstraints(next, after!, seeds);
  const lastOperation = asRecord(asRecord(prev.status).lastOperation);
  if (before === undefined && lastOperation.type === 'Create' && lastOperation.state === 'Pending') {
    const status = { ...asRecord(prev.status) };
    delete status.lastOperation;
    next.status = status;
  }
  return next;
}
