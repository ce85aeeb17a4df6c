/**
 * k8s.io/api/core/v1 (generated.proto): ConfigMap, Secret, Namespace, ServiceAccount, Service,
 * Endpoints and Event.
 */
import {
  bool,
  bytesMap,
  i32,
  intOrString,
  KEEP,
  list,
  message,
  microTime,
  obj,
  resource,
  str,
  strMap,
  strs,
  time,
} from '../descriptor.js';
import { LocalObjectReference } from './container.js';
import { Condition, ObjectMeta } from './meta.js';

export const ConfigMap = message('ConfigMap', {
  1: obj('metadata', ObjectMeta),
  4: bool('immutable', KEEP),
  2: strMap('data'),
  3: bytesMap('binaryData'),
});

export const Secret = message('Secret', {
  1: obj('metadata', ObjectMeta),
  5: bool('immutable', KEEP),
  2: bytesMap('data'),
  4: strMap('stringData'),
  3: str('type'),
});

export const NamespaceSpec = message('NamespaceSpec', { 1: strs('finalizers') });

export const NamespaceStatus = message('NamespaceStatus', {
  1: str('phase'),
  2: list(
    'conditions',
    message('NamespaceCondition', {
      1: str('type', KEEP),
      2: str('status', KEEP),
      4: time('lastTransitionTime'),
      5: str('reason'),
      6: str('message'),
    }),
  ),
});

export const Namespace = resource('Namespace', ObjectMeta, NamespaceSpec, NamespaceStatus);

export const ObjectReference = message('ObjectReference', {
  1: str('kind'),
  2: str('namespace'),
  3: str('name'),
  4: str('uid'),
  5: str('apiVersion'),
  6: str('resourceVersion'),
  7: str('fieldPath'),
});

export const ServiceAccount = message('ServiceAccount', {
  1: obj('metadata', ObjectMeta),
  2: list('secrets', ObjectReference),
  3: list('imagePullSecrets', LocalObjectReference),
  4: bool('automountServiceAccountToken', KEEP),
});

export const ServicePort = message('ServicePort', {
  1: str('name'),
  2: str('protocol'),
  6: str('appProtocol', KEEP),
  3: i32('port', KEEP),
  4: intOrString('targetPort'),
  5: i32('nodePort'),
});

export const ServiceSpec = message('ServiceSpec', {
  1: list('ports', ServicePort),
  2: strMap('selector'),
  3: str('clusterIP'),
  18: strs('clusterIPs'),
  4: str('type'),
  5: strs('externalIPs'),
  7: str('sessionAffinity'),
  8: str('loadBalancerIP'),
  9: strs('loadBalancerSourceRanges'),
  10: str('externalName'),
  11: str('externalTrafficPolicy'),
  12: i32('healthCheckNodePort'),
  13: bool('publishNotReadyAddresses'),
  14: obj(
    'sessionAffinityConfig',
    message('SessionAffinityConfig', {
      1: obj('clientIP', message('ClientIPConfig', { 1: i32('timeoutSeconds', KEEP) })),
    }),
  ),
  19: strs('ipFamilies'),
  17: str('ipFamilyPolicy', KEEP),
  20: bool('allocateLoadBalancerNodePorts', KEEP),
  21: str('loadBalancerClass', KEEP),
  22: str('internalTrafficPolicy', KEEP),
  23: str('trafficDistribution', KEEP),
});

const LoadBalancerIngress = message('LoadBalancerIngress', {
  1: str('ip'),
  2: str('hostname'),
  3: str('ipMode', KEEP),
  4: list(
    'ports',
    message('PortStatus', { 1: i32('port', KEEP), 2: str('protocol', KEEP), 3: str('error', KEEP) }),
  ),
});

export const ServiceStatus = message('ServiceStatus', {
  1: obj('loadBalancer', message('LoadBalancerStatus', { 1: list('ingress', LoadBalancerIngress) })),
  2: list('conditions', Condition),
});

export const Service = resource('Service', ObjectMeta, ServiceSpec, ServiceStatus);

const EndpointAddress = message('EndpointAddress', {
  1: str('ip', KEEP),
  3: str('hostname'),
  4: str('nodeName', KEEP),
  2: obj('targetRef', ObjectReference),
});

export const EndpointSubset = message('EndpointSubset', {
  1: list('addresses', EndpointAddress),
  2: list('notReadyAddresses', EndpointAddress),
  3: list(
    'ports',
    message('EndpointPort', {
      1: str('name'),
      2: i32('port', KEEP),
      3: str('protocol'),
      4: str('appProtocol', KEEP),
    }),
  ),
});

export const Endpoints = message('Endpoints', {
  1: obj('metadata', ObjectMeta),
  2: list('subsets', EndpointSubset),
});

export const Event = message('Event', {
  1: obj('metadata', ObjectMeta),
  2: obj('involvedObject', ObjectReference),
  3: str('reason'),
  4: str('message'),
  5: obj('source', message('EventSource', { 1: str('component'), 2: str('host') })),
  6: time('firstTimestamp'),
  7: time('lastTimestamp'),
  8: i32('count'),
  9: str('type'),
  10: microTime('eventTime'),
  11: obj('series', message('EventSeries', { 1: i32('count'), 2: microTime('lastObservedTime') })),
  12: str('action'),
  13: obj('related', ObjectReference),
  14: str('reportingComponent', KEEP),
  15: str('reportingInstance', KEEP),
});
