/**
 * The cloud profile a shoot's scheduling reads, pure (upstream gardener pkg/utils/gardener/
 * cloudprofile.go GetCloudProfile and BuildV1beta1CloudProfileReference, and
 * pkg/controllermanager/controller/namespacedcloudprofile/reconciler.go MergeCloudProfiles).
 *
 * A shoot names its profile by `spec.cloudProfile {kind, name}` (kind defaults to CloudProfile) or
 * the older `spec.cloudProfileName`. For kind NamespacedCloudProfile (in the shoot's namespace)
 * upstream reads the profile's `status.cloudProfileSpec`, which gardener-controller-manager writes
 * as the parent CloudProfile's spec with the namespaced spec merged onto it. The product runs no
 * such controller, so it merges here, the same way, whenever the parent can be read; a missing
 * parent falls back to the status when something wrote one.
 *
 * Where the product differs: the architecture/capability defaulting of machine types and images
 * (syncArchitectureCapabilities, TransformSpecToParentFormat) is not done; the scheduler reads
 * neither.
 */
import type { CloudProfile, CloudProfileSpec, NamespacedCloudProfile, Shoot } from '../../shared/api/core.js';

export const CLOUD_PROFILE_KIND = 'CloudProfile';
export const NAMESPACED_CLOUD_PROFILE_KIND = 'NamespacedCloudProfile';

export interface CloudProfileReference {
  kind: string;
  name: string;
}

/** Upstream's BuildV1beta1CloudProfileReference; undefined when the shoot names no profile. */
export function cloudProfileReference(shoot: Shoot): CloudProfileReference | undefined {
  const ref = shoot.spec.cloudProfile;
  if (ref) return { kind: ref.kind || CLOUD_PROFILE_KIND, name: ref.name };
  const name = shoot.spec.cloudProfileName;
  return name ? { kind: CLOUD_PROFILE_KIND, name } : undefined;
}

type Item = Record<string, unknown>;

/** Upstream's mergeDeep: by key, in the base's order, overrides merged (or replacing), additions appended if allowed. */
function mergeDeep<T extends Item>(
  base: readonly T[] | undefined,
  override: readonly T[] | undefined,
  key: (item: T) => string,
  merge: ((b: T, o: T) => T) | undefined,
  allowAdditional: boolean,
): T[] | undefined {
  const merged = new Map<string, T>((base ?? []).map((item) => [key(item), item]));
  for (const item of override ?? []) {
    const existing = merged.get(key(item));
    if (existing === undefined) {
      if (allowAdditional) merged.set(key(item), item);
      continue;
    }
    merged.set(key(item), merge ? merge(existing, item) : item);
  }
  return merged.size > 0 ? [...merged.values()] : base ? [...base] : undefined;
}

const byName = (item: Item): string => String(item['name']);
const byVersion = (item: Item): string => String(item['version']);

/** mergeExpirationDates: the base version with the override's expiration date. */
function mergeExpiration<T extends Item>(base: T, override: T): T {
  const out: Item = { ...base };
  if (override['expirationDate'] === undefined) delete out['expirationDate'];
  else out['expirationDate'] = override['expirationDate'];
  return out as T;
}

/** mergeMachineImageVersions: a version the namespaced profile defines fully replaces the parent's. */
function mergeImageVersion(base: Item, override: Item): Item {
  const defines = ['architectures', 'capabilityFlavors', 'cri'].some(
    (k) => Array.isArray(override[k]) && (override[k] as unknown[]).length > 0,
  );
  if (defines || override['kubeletVersionConstraint'] || override['classification']) return override;
  return mergeExpiration(base, override);
}

function mergeImage(base: Item, override: Item): Item {
  const out: Item = { ...base };
  if (override['updateStrategy']) out['updateStrategy'] = override['updateStrategy'];
  const versions = mergeDeep(
    base['versions'] as Item[] | undefined,
    override['versions'] as Item[] | undefined,
    byVersion,
    mergeImageVersion,
    true,
  );
  if (versions) out['versions'] = versions;
  return out;
}

function mergeKubernetes(spec: CloudProfileSpec, ncp: NamespacedCloudProfile['spec']): void {
  if (!ncp.kubernetes) return;
  const versions = mergeDeep(
    spec.kubernetes?.versions,
    ncp.kubernetes.versions,
    byVersion,
    mergeExpiration,
    false,
  );
  spec.kubernetes = { ...spec.kubernetes, versions: versions ?? [] };
}

function mergeLists(spec: CloudProfileSpec, ncp: NamespacedCloudProfile['spec']): void {
  const lists: [string, Item[] | undefined, ((b: Item, o: Item) => Item) | undefined][] = [
    ['machineImages', ncp.machineImages, mergeImage],
    ['machineTypes', ncp.machineTypes, undefined],
    ['volumeTypes', ncp.volumeTypes, undefined],
  ];
  for (const [field, override, merge] of lists) {
    const merged = mergeDeep(spec[field] as Item[] | undefined, override, byName, merge, true);
    if (merged) spec[field] = merged;
  }
}

/** Upstream's MergeCloudProfiles: the parent's spec with the namespaced profile's spec merged onto it. */
export function mergeCloudProfiles(ncp: NamespacedCloudProfile, parent: CloudProfile): CloudProfileSpec {
  const spec = structuredClone(parent.spec);
  mergeKubernetes(spec, ncp.spec);
  mergeLists(spec, ncp.spec);
  if (ncp.spec.caBundle !== undefined)
    spec['caBundle'] = `${(spec['caBundle'] as string | undefined) ?? ''}${ncp.spec.caBundle}`;
  if (ncp.spec.limits) {
    const limits = { ...((spec['limits'] as Item | undefined) ?? {}) };
    if ((ncp.spec.limits.maxNodesTotal ?? 0) > 0) limits['maxNodesTotal'] = ncp.spec.limits.maxNodesTotal;
    spec['limits'] = limits;
  }
  return spec;
}

/**
 * The CloudProfile upstream's GetCloudProfile returns for a NamespacedCloudProfile: named as the
 * namespaced profile, in its namespace, with the merged spec (from the parent when given, else the
 * status); undefined when neither is there.
 */
export function effectiveCloudProfile(
  ncp: NamespacedCloudProfile,
  parent: CloudProfile | undefined,
): CloudProfile | undefined {
  const spec = parent ? mergeCloudProfiles(ncp, parent) : ncp.status?.cloudProfileSpec;
  if (!spec) return undefined;
  return { metadata: { name: ncp.metadata?.name, namespace: ncp.metadata?.namespace }, spec };
}
