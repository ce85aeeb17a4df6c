/**
 * What the Endpoints and EndpointSlice controllers share: the Pods a Service selects and how
 * each of them becomes an endpoint (k8s.io/endpointslice util: ShouldPodBeInEndpoints,
 * ShouldSetHostname; k8s.io/kubernetes pkg/api/v1/pod FindPort and IsPodReady).
 */
import type { KubeObject } from '../api/types.js';

export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: number | string;
  appProtocol?: string;
}

export interface ServiceSpec {
  selector?: Record<string, string>;
  ports?: ServicePort[];
  clusterIP?: string;
  type?: string;
  publishNotReadyAddresses?: boolean;
  ipFamilies?: string[];
}

interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

interface PodParts {
  spec?: {
    nodeName?: string;
    hostname?: string;
    subdomain?: string;
    restartPolicy?: string;
    containers?: { ports?: ContainerPort[] }[];
  };
  status?: {
    phase?: string;
    podIP?: string;
    podIPs?: { ip: string }[];
    conditions?: { type: string; status: string }[];
  };
}

export type Pod = KubeObject & PodParts;

/** The port an endpoint of the pod gets for `sp`, as the EndpointPort the controllers write. */
export interface EndpointPort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export function serviceSpec(svc: KubeObject): ServiceSpec {
  return svc.spec ?? {};
}

/** Whether the controllers manage the Service's endpoints (a selector; upstream: a non-nil selector). */
export function managed(svc: KubeObject): boolean {
  const spec = serviceSpec(svc);
  return spec.selector !== undefined && spec.selector !== null && spec.type !== 'ExternalName';
}

/** The pods of the Service's namespace its selector matches (every label equal). */
export function selectedPods(svc: KubeObject, pods: KubeObject[]): Pod[] {
  const selector = serviceSpec(svc).selector ?? {};
  return pods.filter((p) => Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v));
}

/** Whether labels (of a pod) match the Service's selector. */
export function selects(svc: KubeObject, labels: Record<string, string> | undefined): boolean {
  if (!managed(svc)) return false;
  return Object.entries(serviceSpec(svc).selector ?? {}).every(([k, v]) => labels?.[k] === v);
}

export function podIP(pod: Pod): string | undefined {
  return pod.status?.podIP || pod.status?.podIPs?.[0]?.ip || undefined;
}

/** ShouldPodBeInEndpoints: not terminal, with an IP, not terminating unless asked. */
export function inEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (!podIP(pod)) return false;
  return includeTerminating || !pod.metadata.deletionTimestamp;
}

/** IsPodReady: the Ready condition is True. */
export function podReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** ShouldSetHostname: the pod's hostname, when its subdomain is the Service's name. */
export function hostname(pod: Pod, svc: KubeObject): string | undefined {
  const { hostname: h, subdomain } = pod.spec ?? {};
  return h && subdomain === svc.metadata.name && pod.metadata.namespace === svc.metadata.namespace
    ? h
    : undefined;
}

/** A container port of the pod by name and protocol. */
function namedPort(pod: Pod, name: string, protocol: string): number | undefined {
  const ports = (pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []);
  return ports.find((p) => p.name === name && (p.protocol ?? 'TCP') === protocol)?.containerPort;
}

/** FindPort: a number targetPort as is; a named one through the pod's container ports. */
function findPort(pod: Pod, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  return namedPort(pod, target, sp.protocol ?? 'TCP');
}

/** The Service's ports as the pod serves them (a named port the pod lacks is left out). */
export function endpointPorts(svc: KubeObject, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of serviceSpec(svc).ports ?? []) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    const ep: EndpointPort = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' };
    if (sp.appProtocol) ep.appProtocol = sp.appProtocol;
    out.push(ep);
  }
  return out;
}

export function targetRef(pod: Pod): Record<string, string> {
  return {
    kind: 'Pod',
    namespace: pod.metadata.namespace!,
    name: pod.metadata.name!,
    uid: pod.metadata.uid!,
  };
}

/** IsServiceIPSet's negation as far as this server knows: clusterIP None (headless). */
export function headless(svc: KubeObject): boolean {
  return serviceSpec(svc).clusterIP === 'None';
}

export const HEADLESS_LABEL = 'service.kubernetes.io/headless';

/** Pods sorted by name: the controllers' writes do not depend on the store's order. */
export function byName(a: KubeObject, b: KubeObject): number {
  return a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0;
}
