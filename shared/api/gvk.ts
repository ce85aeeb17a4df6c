/**
 * Every kind the product touches: group, version, apiVersion, kind, plural (the URL segment) and
 * scope, as one `as const` table so clients build URLs without discovery.
 */

export interface GroupVersionKind {
  /** `''` for the core group. */
  readonly group: string;
  readonly version: string;
  /** `v1` for the core group, else `group/version`. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

function gvk<const G extends string, const V extends string, const K extends string, const P extends string>(
  group: G,
  version: V,
  kind: K,
  plural: P,
  namespaced: boolean,
): {
  group: G;
  version: V;
  apiVersion: G extends '' ? V : `${G}/${V}`;
  kind: K;
  plural: P;
  namespaced: boolean;
} {
  const apiVersion = (group === '' ? version : `${group}/${version}`) as G extends '' ? V : `${G}/${V}`;
  return { group, version, apiVersion, kind, plural, namespaced };
}

const LS = 'landscaper.gardener.cloud';
const CORE = 'core.gardener.cloud';
const SM = 'seedmanagement.gardener.cloud';
const AUTOSCALING = 'autoscaling.landscape.dev';

export const GVK = {
  // landscaper.gardener.cloud/v1alpha1
  DeployItem: gvk(LS, 'v1alpha1', 'DeployItem', 'deployitems', true),
  Target: gvk(LS, 'v1alpha1', 'Target', 'targets', true),
  SyncObject: gvk(LS, 'v1alpha1', 'SyncObject', 'syncobjects', true),
  Context: gvk(LS, 'v1alpha1', 'Context', 'contexts', true),
  // core.gardener.cloud/v1beta1
  Seed: gvk(CORE, 'v1beta1', 'Seed', 'seeds', false),
  Shoot: gvk(CORE, 'v1beta1', 'Shoot', 'shoots', true),
  CloudProfile: gvk(CORE, 'v1beta1', 'CloudProfile', 'cloudprofiles', false),
  Project: gvk(CORE, 'v1beta1', 'Project', 'projects', false),
  // seedmanagement.gardener.cloud/v1alpha1
  ManagedSeed: gvk(SM, 'v1alpha1', 'ManagedSeed', 'managedseeds', true),
  ManagedSeedSet: gvk(SM, 'v1alpha1', 'ManagedSeedSet', 'managedseedsets', true),
  // autoscaling.landscape.dev/v1alpha1 (the product's own)
  SeedAutoscaler: gvk(AUTOSCALING, 'v1alpha1', 'SeedAutoscaler', 'seedautoscalers', true),
  // extensions.gardener.cloud/v1alpha1
  Cluster: gvk('extensions.gardener.cloud', 'v1alpha1', 'Cluster', 'clusters', false),
  // machine.sapcloud.io/v1alpha1
  Machine: gvk('machine.sapcloud.io', 'v1alpha1', 'Machine', 'machines', true),
  // core/v1
  Pod: gvk('', 'v1', 'Pod', 'pods', true),
  Secret: gvk('', 'v1', 'Secret', 'secrets', true),
  ConfigMap: gvk('', 'v1', 'ConfigMap', 'configmaps', true),
  Service: gvk('', 'v1', 'Service', 'services', true),
  Endpoints: gvk('', 'v1', 'Endpoints', 'endpoints', true),
  ServiceAccount: gvk('', 'v1', 'ServiceAccount', 'serviceaccounts', true),
  Event: gvk('', 'v1', 'Event', 'events', true),
  Namespace: gvk('', 'v1', 'Namespace', 'namespaces', false),
  Node: gvk('', 'v1', 'Node', 'nodes', false),
  // apps/v1
  Deployment: gvk('apps', 'v1', 'Deployment', 'deployments', true),
  StatefulSet: gvk('apps', 'v1', 'StatefulSet', 'statefulsets', true),
  DaemonSet: gvk('apps', 'v1', 'DaemonSet', 'daemonsets', true),
  ReplicaSet: gvk('apps', 'v1', 'ReplicaSet', 'replicasets', true),
  // coordination.k8s.io/v1, discovery.k8s.io/v1, autoscaling/v2, apiextensions.k8s.io/v1
  Lease: gvk('coordination.k8s.io', 'v1', 'Lease', 'leases', true),
  EndpointSlice: gvk('discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices', true),
  HorizontalPodAutoscaler: gvk(
    'autoscaling',
    'v2',
    'HorizontalPodAutoscaler',
    'horizontalpodautoscalers',
    true,
  ),
  CustomResourceDefinition: gvk(
    'apiextensions.k8s.io',
    'v1',
    'CustomResourceDefinition',
    'customresourcedefinitions',
    false,
  ),
} as const satisfies Record<string, GroupVersionKind>;

export type KnownKind = keyof typeof GVK;

export const KNOWN_KINDS = Object.keys(GVK) as readonly KnownKind[];

export function isKnownKind(value: unknown): value is KnownKind {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(GVK, value);
}

/** The table entry for an apiVersion/kind pair, or undefined when the product does not know it. */
export function gvkFor(apiVersion: string, kind: string): GroupVersionKind | undefined {
  return Object.values(GVK).find((g: GroupVersionKind) => g.apiVersion === apiVersion && g.kind === kind);
}

/** The table entry for a kind name alone (kinds are unique in the table), e.g. a SyncObject's `spec.kind`. */
export function gvkForKind(kind: string): GroupVersionKind | undefined {
  return isKnownKind(kind) ? GVK[kind] : undefined;
}
