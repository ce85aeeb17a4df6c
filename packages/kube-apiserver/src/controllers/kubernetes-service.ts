/**
 * The `default/kubernetes` Service and its Endpoints and EndpointSlice, pointing at the API
 * server itself, as kube-apiserver keeps them (k8s.io/kubernetes pkg/controlplane/controller/
 * kubernetesservice/controller.go: the Service with port `https` 443 → the secure port;
 * pkg/controlplane/reconcilers/endpointsadapter.go: the Endpoints labelled skip-mirror and the
 * EndpointSlice named `kubernetes` it writes beside them).
 *
 * Written when the server listens (its port is known then: `sync(host, port)`), and again when
 * one of the three is deleted or changed by someone else; nothing is written when they are as
 * they should be (a restart on the same port writes nothing).
 */
import type { Operations } from '../registry/operations.js';
import { subscribeResources, type Store, type StoreEvent } from '../storage/store.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { deepEqual } from '../api/objects.js';

const NAME = 'kubernetes';
const NAMESPACE = 'default';
/** The first address of the service CIDR (10.96.0.0/12), the one kube-apiserver reserves for this Service. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
const SERVICES = '/services';
const ENDPOINTS = '/endpoints';
const SLICES = 'discovery.k8s.io/endpointslices';
const WRITE = { fieldValidation: 'Ignore' as const, dryRun: false };

interface Deps {
  store: Store;
  ops: Operations;
  defOf: (resource: string) => ResourceDef | undefined;
}

interface Address {
  host: string;
  port: number;
}

type Obj = KubeObject & Record<string, unknown>;

/** The three objects as kube-apiserver writes them for a server at `at`. */
export function kubernetesServiceObjects(at: Address): Record<string, Obj> {
  const metadata = { name: NAME, namespace: NAMESPACE };
  const port = { name: 'https', port: at.port, protocol: 'TCP' };
  return {
    [SERVICES]: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { ...metadata, labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: {
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: at.port }],
        clusterIP: KUBERNETES_SERVICE_IP,
        clusterIPs: [KUBERNETES_SERVICE_IP],
        type: 'ClusterIP',
        sessionAffinity: 'None',
      },
    },
    [ENDPOINTS]: {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { ...metadata, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: [{ addresses: [{ ip: at.host }], ports: [port] }],
    },
    [SLICES]: {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { ...metadata, labels: { 'kubernetes.io/service-name': NAME } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [at.host], conditions: { ready: true } }],
      ports: [port],
    },
  };
}

/** The fields of each object this controller owns (the rest is left to defaults and to others). */
function owned(resource: string, obj: Obj): unknown {
  const labels = obj.metadata.labels ?? {};
  if (resource === SERVICES) return [(obj.spec as { ports?: unknown })?.ports, labels.provider];
  if (resource === ENDPOINTS) return [obj.subsets, labels['endpointslice.kubernetes.io/skip-mirror']];
  return [obj.addressType, obj.endpoints, obj.ports, labels['kubernetes.io/service-name']];
}

function syncOne(deps: Deps, resource: string, want: Obj): void {
  const def = deps.defOf(resource)!;
  const have = deps.store.get(resource, NAMESPACE, NAME);
  if (!have) {
    deps.ops.create({ def, namespace: NAMESPACE }, want, WRITE);
    return;
  }
  if (deepEqual(owned(resource, have), owned(resource, want))) return;
  const labels = { ...(have.metadata.labels ?? {}), ...(want.metadata.labels ?? {}) };
  const spec =
    resource === SERVICES
      ? { ...(have.spec as object), ports: (want.spec as { ports: unknown }).ports }
      : undefined;
  const next = { ...have, ...want, metadata: { ...have.metadata, labels }, ...(spec ? { spec } : {}) };
  deps.ops.update({ def, namespace: NAMESPACE, name: NAME }, next, WRITE);
}

export interface KubernetesService {
  /** Puts the three objects right for the server listening at host:port. */
  sync(host: string, port: number): void;
  stop(): void;
}

export function startKubernetesService(deps: Deps): KubernetesService {
  let at: Address | undefined;
  let scheduled = false;
  const run = (): void => {
    scheduled = false;
    if (!at) return;
    for (const [resource, want] of Object.entries(kubernetesServiceObjects(at))) {
      try {
        syncOne(deps, resource, want);
      } catch {
        // a concurrent write won (or the namespace is going away): its event brings us back
      }
    }
  };
  const mine = (e: StoreEvent): boolean =>
    [SERVICES, ENDPOINTS, SLICES].includes(e.resource) &&
    e.object.metadata.namespace === NAMESPACE &&
    e.object.metadata.name === NAME;
  const unsubscribe = subscribeResources(deps.store, [SERVICES, ENDPOINTS, SLICES], (e) => {
    if (!at || scheduled || !mine(e)) return;
    scheduled = true;
    setImmediate(run);
  });
  return {
    sync(host, port): void {
      at = { host, port };
      run();
    },
    stop: unsubscribe,
  };
}
