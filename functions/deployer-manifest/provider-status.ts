/**
 * The manifest deployer's providerStatus (pure): read what a previous step (or an upstream
 * deployer) left, build what this step leaves.
 *
 * Shape (upstream v1alpha2 ProviderStatus):
 * ```yaml
 * apiVersion: manifest.deployer.landscaper.gardener.cloud/v1alpha2
 * kind: ProviderStatus
 * managedResources:
 * - policy: manage
 *   resource: {apiVersion: v1, kind: ConfigMap, name: cm, namespace: default}
 *   annotateBeforeDelete: {...}          # when the manifest asked for it
 *   patchBeforeDelete: {...}             # likewise
 * ```
 * plus three fields of this product (the CRD keeps unknown fields of providerStatus):
 * - `appliedJobID`, `appliedGeneration`: the job (and item generation) whose manifests are
 *   applied. A step of the same job and generation skips validation and apply and goes on with
 *   the cleanup of dropped objects and the readiness checks: re-entry after a `wait` costs a few
 *   GETs, not a dry run and a write per manifest.
 * - `orphanedResources`: objects dropped from the manifest list whose deletion is under way
 *   (deleted in the upstream group order; a later step waits for them). An uninstall deletes
 *   these too, so nothing is lost when the item is deleted in between.
 *
 * A v1alpha1 status (`managedResources` as a list of typed object references) reads as policy
 * `manage`, as upstream converts it. Entries that are not understood are dropped.
 */
import * as z from '../../shared/config/zod.js';
import { groupOf } from './objects.js';
import { MANIFEST_CONFIG_GROUP, MANIFEST_POLICIES, type ManifestPolicy } from './provider-config.js';

export const PROVIDER_STATUS_API_VERSION = `${MANIFEST_CONFIG_GROUP}/v1alpha2`;
export const PROVIDER_STATUS_KIND = 'ProviderStatus';

export interface ResourceRef {
  apiVersion: string;
  kind: string;
  name: string;
  /** Omitted for cluster-scoped objects. */
  namespace?: string;
}

export interface ManagedResource {
  policy: ManifestPolicy;
  resource: ResourceRef;
  annotateBeforeDelete?: Record<string, string>;
  /** Merged into the object (upstream: mergo with override) before it is deleted. */
  patchBeforeDelete?: Record<string, unknown>;
}

export interface ManifestProviderStatus {
  managedResources: ManagedResource[];
  orphanedResources: ManagedResource[];
  appliedJobID?: string;
  appliedGeneration?: number;
}

const refSchema = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  name: z.string().min(1),
  namespace: z.string().optional(),
});

const v1alpha2Entry = z.object({
  policy: z.union([z.enum(MANIFEST_POLICIES), z.literal('')]).optional(),
  resource: refSchema,
  annotateBeforeDelete: z.record(z.string(), z.string()).optional(),
  patchBeforeDelete: z.record(z.string(), z.unknown()).optional(),
});

function toRef(r: z.output<typeof refSchema>): ResourceRef {
  return {
    apiVersion: r.apiVersion,
    kind: r.kind,
    name: r.name,
    ...(r.namespace ? { namespace: r.namespace } : {}),
  };
}

function readEntry(raw: unknown): ManagedResource | undefined {
  const v2 = v1alpha2Entry.safeParse(raw);
  if (v2.success) {
    const { policy, resource, annotateBeforeDelete, patchBeforeDelete } = v2.data;
    return {
      policy: policy ? policy : 'manage',
      resource: toRef(resource),
      ...(annotateBeforeDelete ? { annotateBeforeDelete } : {}),
      ...(patchBeforeDelete ? { patchBeforeDelete } : {}),
    };
  }
  const v1 = refSchema.safeParse(raw);
  return v1.success ? { policy: 'manage', resource: toRef(v1.data) } : undefined;
}

function readList(raw: unknown): ManagedResource[] {
  if (!Array.isArray(raw)) return [];
  return raw.map(readEntry).filter((e): e is ManagedResource => e !== undefined);
}

/** What the item's current providerStatus says; empty for none or another deployer's. */
export function readProviderStatus(raw: unknown): ManifestProviderStatus {
  if (typeof raw !== 'object' || raw === null) return { managedResources: [], orphanedResources: [] };
  const s = raw as Record<string, unknown>;
  return {
    managedResources: readList(s.managedResources),
    orphanedResources: readList(s.orphanedResources),
    ...(typeof s.appliedJobID === 'string' ? { appliedJobID: s.appliedJobID } : {}),
    ...(typeof s.appliedGeneration === 'number' ? { appliedGeneration: s.appliedGeneration } : {}),
  };
}

/** The providerStatus object to write (empty optional parts left out). */
export function buildProviderStatus(status: ManifestProviderStatus): Record<string, unknown> {
  return {
    apiVersion: PROVIDER_STATUS_API_VERSION,
    kind: PROVIDER_STATUS_KIND,
    managedResources: status.managedResources,
    ...(status.orphanedResources.length > 0 ? { orphanedResources: status.orphanedResources } : {}),
    ...(status.appliedJobID !== undefined ? { appliedJobID: status.appliedJobID } : {}),
    ...(status.appliedGeneration !== undefined ? { appliedGeneration: status.appliedGeneration } : {}),
  };
}

/**
 * The identity of an object across versions of its kind: group, kind, namespace, name (upstream
 * compares GroupKind, not the version).
 */
export function refKey(ref: ResourceRef): string {
  return [groupOf(ref.apiVersion), ref.kind, ref.namespace ?? '', ref.name].join('/');
}

/** `ConfigMap default/cm` / `Namespace ns`, for messages. */
export function describeRef(ref: ResourceRef): string {
  return ref.namespace ? `${ref.kind} ${ref.namespace}/${ref.name}` : `${ref.kind} ${ref.name}`;
}

/** Upstream's order inside an apply group: kind, then namespace, then name. */
export function compareManaged(a: ManagedResource, b: ManagedResource): number {
  const key = (m: ManagedResource): string[] => [
    m.resource.kind,
    m.resource.namespace ?? '',
    m.resource.name,
    m.resource.apiVersion,
  ];
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
  }
  return 0;
}

/** The same list without a second entry for an object (the first one wins). */
export function uniqueManaged(list: readonly ManagedResource[]): ManagedResource[] {
  const seen = new Set<string>();
  return list.filter((m) => {
    const k = refKey(m.resource);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
