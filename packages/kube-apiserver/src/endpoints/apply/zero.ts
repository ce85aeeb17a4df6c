/**
 * The "new" object an API server compares a created object against. For a custom resource that
 * is just apiVersion and kind; for a built-in kind it is the Go zero value, whose non-pointer
 * structs are `{}` and whose non-omitempty pointers and slices are null. That difference shows in
 * managedFields: a created CR's `f:spec` carries `.: {}`, a Deployment's does not. The table holds
 * the zero values of the built-in kinds this server serves, at the levels that matter for them.
 */
import { apiVersionOf } from '../../registry/kinds.js';
import type { KubeObject, ResourceDef } from '../../api/types.js';

type Zero = () => Record<string, unknown>;

const podTemplate = (): Record<string, unknown> => ({
  metadata: { creationTimestamp: null },
  spec: { containers: null },
});

const ZEROS: Record<string, Zero> = {
  'apps/Deployment': () => ({
    spec: { selector: null, template: podTemplate(), strategy: {} },
    status: {},
  }),
  'apps/StatefulSet': () => ({
    spec: { selector: null, template: podTemplate(), updateStrategy: {} },
    status: { replicas: 0, availableReplicas: 0 },
  }),
  'apps/DaemonSet': () => ({
    spec: { selector: null, template: podTemplate(), updateStrategy: {} },
    status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
  }),
  '/ReplicationController': () => ({ spec: {}, status: { replicas: 0 } }),
  '/Pod': () => ({ spec: { containers: null }, status: {} }),
  '/Service': () => ({ spec: {}, status: { loadBalancer: {} } }),
  '/Namespace': () => ({ spec: {}, status: {} }),
  '/Node': () => ({ spec: {}, status: { daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo: {} } }),
  '/Event': () => ({
    involvedObject: {},
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    eventTime: null,
    reportingComponent: '',
    reportingInstance: '',
  }),
  'autoscaling/HorizontalPodAutoscaler': () => ({
    spec: { scaleTargetRef: { kind: '', name: '' }, maxReplicas: 0 },
    status: { desiredReplicas: 0 },
  }),
  'apiextensions.k8s.io/CustomResourceDefinition': () => ({
    spec: { group: '', names: { plural: '', kind: '' }, scope: '', versions: null },
    status: { acceptedNames: { plural: '', kind: '' }, storedVersions: null },
  }),
  'coordination.k8s.io/Lease': () => ({ spec: {} }),
  'discovery.k8s.io/EndpointSlice': () => ({ addressType: '', endpoints: null }),
};

/** The object a create is compared against (managedFields of creates are computed from it). */
export function zeroObject(def: ResourceDef): KubeObject {
  const extra = def.builtin ? (ZEROS[`${def.group}/${def.kind}`]?.() ?? {}) : {};
  const metadata = def.builtin ? { creationTimestamp: null } : {};
  return { apiVersion: apiVersionOf(def), kind: def.kind, ...extra, metadata } as unknown as KubeObject;
}
