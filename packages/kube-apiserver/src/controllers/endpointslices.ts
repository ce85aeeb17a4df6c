/**
 * The EndpointSlice controller's desired slices for one Service (k8s.io/kubernetes
 * pkg/controller/endpointslice/endpointslice_controller.go syncService and k8s.io/endpointslice
 * reconciler.go, utils.go podToEndpoint / newEndpointSlice / setEndpointSliceLabels):
 * discovery.k8s.io/v1 slices named `<service>-<random>`, labelled `kubernetes.io/service-name` and
 * `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io` (plus the Service's
 * labels), owned by the Service; one endpoint per selected pod with an IP (terminating ones
 * too), conditions ready/serving/terminating; pods grouped by the ports they serve, at most 100
 * endpoints a slice; a Service without such pods gets one placeholder slice (endpoints and
 * ports null).
 *
 * `planSlices` compares with the stored slices and says what to create, update and delete;
 * a slice that is right already is left alone (no write when nothing changed).
 */
import type { KubeObject, OwnerReference } from '../api/types.js';
import { deepEqual } from '../api/objects.js';
import {
  byName,
  endpointPorts,
  HEADLESS_LABEL,
  headless,
  hostname,
  inEndpoints,
  podIP,
  podReady,
  serviceSpec,
  targetRef,
  type EndpointPort,
  type Pod,
} from './service-pods.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
const MAX_ENDPOINTS = 100;

interface Endpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  hostname?: string;
  targetRef: Record<string, string>;
  nodeName?: string;
}

type Slice = KubeObject & {
  addressType?: string;
  endpoints?: Endpoint[] | null;
  ports?: EndpointPort[] | null;
};

/** What a slice holds, as compared: endpoints, ports, address type, labels. */
interface Content {
  addressType: string;
  endpoints: Endpoint[] | null;
  ports: EndpointPort[] | null;
  labels: Record<string, string>;
}

function podToEndpoint(svc: KubeObject, pod: Pod): Endpoint {
  const serving = podReady(pod);
  const terminating = pod.metadata.deletionTimestamp !== undefined;
  const ready = serviceSpec(svc).publishNotReadyAddresses === true || (serving && !terminating);
  const ep: Endpoint = {
    addresses: [podIP(pod)!],
    conditions: { ready, serving, terminating },
    targetRef: targetRef(pod),
  };
  const h = hostname(pod, svc);
  if (h) ep.hostname = h;
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  return ep;
}

/** setEndpointSliceLabels: the Service's labels, then the controller's own. */
export function sliceLabels(svc: KubeObject): Record<string, string> {
  const labels = { ...(svc.metadata.labels ?? {}) };
  for (const reserved of [SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL]) delete labels[reserved];
  if (headless(svc)) labels[HEADLESS_LABEL] = '';
  return { ...labels, [SERVICE_NAME_LABEL]: svc.metadata.name!, [MANAGED_BY_LABEL]: CONTROLLER_NAME };
}

/** The slices' contents the Service should have (always at least one). */
export function desiredContents(svc: KubeObject, pods: Pod[]): Content[] {
  const addressType = serviceSpec(svc).ipFamilies?.[0] === 'IPv6' ? 'IPv6' : 'IPv4';
  const labels = sliceLabels(svc);
  const byPorts = new Map<string, { ports: EndpointPort[]; endpoints: Endpoint[] }>();
  for (const pod of [...pods].sort(byName)) {
    if (!inEndpoints(pod, true)) continue;
    const ports = endpointPorts(svc, pod);
    const key = JSON.stringify(ports);
    const group = byPorts.get(key) ?? { ports, endpoints: [] };
    byPorts.set(key, group);
    group.endpoints.push(podToEndpoint(svc, pod));
  }
  const out: Content[] = [];
  for (const { ports, endpoints } of byPorts.values())
    for (let i = 0; i < endpoints.length; i += MAX_ENDPOINTS)
      out.push({ addressType, ports, endpoints: endpoints.slice(i, i + MAX_ENDPOINTS), labels });
  if (out.length === 0) out.push({ addressType, endpoints: null, ports: null, labels });
  return out;
}

function contentOf(slice: Slice): Content {
  const list = <T>(v: T[] | null | undefined): T[] | null => (v && v.length ? v : null);
  return {
    addressType: slice.addressType ?? '',
    endpoints: list(slice.endpoints),
    ports: list(slice.ports),
    labels: slice.metadata.labels ?? {},
  };
}

function sameContent(a: Content, b: Content): boolean {
  return deepEqual(a, b);
}

function ownerReference(svc: KubeObject): OwnerReference {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    name: svc.metadata.name!,
    uid: svc.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function withContent(base: KubeObject, c: Content): Slice {
  return {
    ...base,
    metadata: { ...base.metadata, labels: c.labels },
    addressType: c.addressType,
    endpoints: c.endpoints,
    ports: c.ports,
  };
}

export interface SlicePlan {
  create: Slice[];
  update: Slice[];
  delete: KubeObject[];
}

/** Whether a stored slice is this controller's slice of the Service. */
export function ownSlice(svc: KubeObject, slice: KubeObject): boolean {
  const labels = slice.metadata.labels ?? {};
  return labels[SERVICE_NAME_LABEL] === svc.metadata.name && labels[MANAGED_BY_LABEL] === CONTROLLER_NAME;
}

/** The writes that turn the Service's stored slices (`have`: its own) into the desired ones. */
export function planSlices(svc: KubeObject, pods: Pod[], have: KubeObject[]): SlicePlan {
  const want = desiredContents(svc, pods);
  const left = [...have].sort(byName) as Slice[];
  const unmatched: Content[] = [];
  for (const c of want) {
    const i = left.findIndex((s) => sameContent(contentOf(s), c) && addressTypeOk(s, c));
    if (i >= 0) left.splice(i, 1);
    else unmatched.push(c);
  }
  const plan: SlicePlan = { create: [], update: [], delete: [] };
  for (const c of unmatched) {
    const reuse = left.findIndex((s) => s.addressType === c.addressType);
    if (reuse >= 0) plan.update.push(withContent(left.splice(reuse, 1)[0], c));
    else plan.create.push(newSlice(svc, c));
  }
  plan.delete = left;
  return plan;
}

/** addressType is immutable: a slice of another address type is replaced, not updated. */
function addressTypeOk(s: Slice, c: Content): boolean {
  return s.addressType === c.addressType;
}

function newSlice(svc: KubeObject, c: Content): Slice {
  const metadata = {
    generateName: `${svc.metadata.name}-`,
    namespace: svc.metadata.namespace,
    ownerReferences: [ownerReference(svc)],
  };
  return withContent({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata }, c);
}
