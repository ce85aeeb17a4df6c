/**
 * The Endpoints controller's sync of one Service (k8s.io/kubernetes pkg/controller/endpoint/
 * endpoints_controller.go syncService): an Endpoints object named as the Service, its subsets
 * the selected pods with an IP (ready ones as `addresses`, the others as `notReadyAddresses`)
 * grouped by the ports they serve, labelled as the Service (plus `service.kubernetes.io/headless`
 * for a headless one). Written only when subsets or labels differ; deleted with its Service.
 */
import type { KubeObject } from '../api/types.js';
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

interface Address {
  ip: string;
  nodeName?: string;
  hostname?: string;
  targetRef: Record<string, string>;
}

interface Subset {
  addresses?: Address[];
  notReadyAddresses?: Address[];
  ports?: EndpointPort[];
}

function address(pod: Pod, svc: KubeObject): Address {
  const out: Address = { ip: podIP(pod)!, targetRef: targetRef(pod) };
  const h = hostname(pod, svc);
  if (h) out.hostname = h;
  if (pod.spec?.nodeName) out.nodeName = pod.spec.nodeName;
  return out;
}

/** A pod that serves none of the Service's ports (when it has some) is left out. */
function servesNone(svc: KubeObject, ports: EndpointPort[]): boolean {
  return (serviceSpec(svc).ports ?? []).length > 0 && ports.length === 0;
}

/** The subsets: one per set of ports, addresses in pod-name order (RepackSubsets, deterministic). */
export function endpointSubsets(svc: KubeObject, pods: Pod[]): Subset[] {
  const publishNotReady = serviceSpec(svc).publishNotReadyAddresses === true;
  const byPorts = new Map<string, Subset>();
  for (const pod of [...pods].sort(byName)) {
    if (!inEndpoints(pod, publishNotReady)) continue;
    const ports = endpointPorts(svc, pod);
    if (servesNone(svc, ports)) continue;
    const key = JSON.stringify(ports);
    const subset = byPorts.get(key) ?? (ports.length ? { ports } : {});
    byPorts.set(key, subset);
    const field = publishNotReady || podReady(pod) ? 'addresses' : 'notReadyAddresses';
    (subset[field] ??= []).push(address(pod, svc));
  }
  return [...byPorts.values()];
}

/** The labels of a Service's Endpoints: the Service's, with or without the headless label. */
export function endpointsLabels(svc: KubeObject): Record<string, string> {
  const labels = { ...(svc.metadata.labels ?? {}) };
  delete labels[HEADLESS_LABEL];
  if (headless(svc)) labels[HEADLESS_LABEL] = '';
  return labels;
}

/** The Endpoints to store for the Service, or undefined when the stored one is right already. */
export function desiredEndpoints(
  svc: KubeObject,
  pods: Pod[],
  have: KubeObject | undefined,
): KubeObject | undefined {
  const subsets = endpointSubsets(svc, pods);
  const labels = endpointsLabels(svc);
  const haveSubsets = (have as { subsets?: Subset[] } | undefined)?.subsets ?? [];
  if (have && deepEqual(haveSubsets, subsets) && deepEqual(have.metadata.labels ?? {}, labels))
    return undefined;
  const { name, namespace } = svc.metadata;
  const metadata = have
    ? { ...have.metadata, labels }
    : { name, namespace, ...(Object.keys(labels).length ? { labels } : {}) };
  const out: KubeObject & { subsets?: Subset[] } = { apiVersion: 'v1', kind: 'Endpoints', metadata };
  if (subsets.length) out.subsets = subsets;
  return out;
}
