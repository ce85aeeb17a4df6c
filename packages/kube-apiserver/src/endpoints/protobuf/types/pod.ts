/**
 * k8s.io/api/core/v1 (generated.proto): PodSpec (scheduling, DNS, security), PodStatus with
 * container statuses, Pod and PodTemplateSpec.
 */
import {
  bool,
  i32,
  i64,
  ints,
  KEEP,
  list,
  message,
  obj,
  quantityMap,
  resource,
  str,
  strMap,
  strs,
  time,
  type MessageDesc,
} from '../descriptor.js';
import {
  AppArmorProfile,
  Container,
  EphemeralContainer,
  LocalObjectReference,
  ResourceRequirements,
  SeccompProfile,
  SELinuxOptions,
  WindowsSecurityContextOptions,
} from './container.js';
import { LabelSelector, ObjectMeta } from './meta.js';
import { Volume } from './volume.js';

const NodeSelectorRequirement = message('NodeSelectorRequirement', {
  1: str('key', KEEP),
  2: str('operator', KEEP),
  3: strs('values'),
});

const NodeSelectorTerm = message('NodeSelectorTerm', {
  1: list('matchExpressions', NodeSelectorRequirement),
  2: list('matchFields', NodeSelectorRequirement),
});

const NodeAffinity = message('NodeAffinity', {
  1: obj(
    'requiredDuringSchedulingIgnoredDuringExecution',
    message('NodeSelector', { 1: list('nodeSelectorTerms', NodeSelectorTerm) }),
  ),
  2: list(
    'preferredDuringSchedulingIgnoredDuringExecution',
    message('PreferredSchedulingTerm', { 1: i32('weight', KEEP), 2: obj('preference', NodeSelectorTerm) }),
  ),
});

const PodAffinityTerm = message('PodAffinityTerm', {
  1: obj('labelSelector', LabelSelector),
  2: strs('namespaces'),
  3: str('topologyKey', KEEP),
  4: obj('namespaceSelector', LabelSelector),
  5: strs('matchLabelKeys'),
  6: strs('mismatchLabelKeys'),
});

const podAffinity = (name: string): MessageDesc =>
  message(name, {
    1: list('requiredDuringSchedulingIgnoredDuringExecution', PodAffinityTerm),
    2: list(
      'preferredDuringSchedulingIgnoredDuringExecution',
      message('WeightedPodAffinityTerm', {
        1: i32('weight', KEEP),
        2: obj('podAffinityTerm', PodAffinityTerm),
      }),
    ),
  });

export const Affinity = message('Affinity', {
  1: obj('nodeAffinity', NodeAffinity),
  2: obj('podAffinity', podAffinity('PodAffinity')),
  3: obj('podAntiAffinity', podAffinity('PodAntiAffinity')),
});

export const Toleration = message('Toleration', {
  1: str('key'),
  2: str('operator'),
  3: str('value'),
  4: str('effect'),
  5: i64('tolerationSeconds', KEEP),
});

export const PodDNSConfig = message('PodDNSConfig', {
  1: strs('nameservers'),
  2: strs('searches'),
  3: list('options', message('PodDNSConfigOption', { 1: str('name'), 2: str('value', KEEP) })),
});

export const TopologySpreadConstraint = message('TopologySpreadConstraint', {
  1: i32('maxSkew', KEEP),
  2: str('topologyKey', KEEP),
  3: str('whenUnsatisfiable', KEEP),
  4: obj('labelSelector', LabelSelector),
  5: i32('minDomains', KEEP),
  6: str('nodeAffinityPolicy', KEEP),
  7: str('nodeTaintsPolicy', KEEP),
  8: strs('matchLabelKeys'),
});

export const PodSecurityContext = message('PodSecurityContext', {
  1: obj('seLinuxOptions', SELinuxOptions),
  8: obj('windowsOptions', WindowsSecurityContextOptions),
  2: i64('runAsUser', KEEP),
  6: i64('runAsGroup', KEEP),
  3: bool('runAsNonRoot', KEEP),
  4: ints('supplementalGroups', 'int64'),
  12: str('supplementalGroupsPolicy', KEEP),
  5: i64('fsGroup', KEEP),
  7: list('sysctls', message('Sysctl', { 1: str('name', KEEP), 2: str('value', KEEP) })),
  9: str('fsGroupChangePolicy', KEEP),
  10: obj('seccompProfile', SeccompProfile),
  11: obj('appArmorProfile', AppArmorProfile),
  13: str('seLinuxChangePolicy', KEEP),
});

export const PodSpec = message('PodSpec', {
  1: list('volumes', Volume),
  20: list('initContainers', Container),
  2: list('containers', Container),
  34: list('ephemeralContainers', EphemeralContainer),
  3: str('restartPolicy'),
  4: i64('terminationGracePeriodSeconds', KEEP),
  5: i64('activeDeadlineSeconds', KEEP),
  6: str('dnsPolicy'),
  7: strMap('nodeSelector'),
  8: str('serviceAccountName'),
  9: str('serviceAccount'),
  21: bool('automountServiceAccountToken', KEEP),
  10: str('nodeName'),
  11: bool('hostNetwork'),
  12: bool('hostPID'),
  13: bool('hostIPC'),
  27: bool('shareProcessNamespace', KEEP),
  14: obj('securityContext', PodSecurityContext),
  15: list('imagePullSecrets', LocalObjectReference),
  16: str('hostname'),
  17: str('subdomain'),
  18: obj('affinity', Affinity),
  19: str('schedulerName'),
  22: list('tolerations', Toleration),
  23: list('hostAliases', message('HostAlias', { 1: str('ip', KEEP), 2: strs('hostnames') })),
  24: str('priorityClassName'),
  25: i32('priority', KEEP),
  26: obj('dnsConfig', PodDNSConfig),
  28: list('readinessGates', message('PodReadinessGate', { 1: str('conditionType', KEEP) })),
  29: str('runtimeClassName', KEEP),
  30: bool('enableServiceLinks', KEEP),
  31: str('preemptionPolicy', KEEP),
  32: quantityMap('overhead'),
  33: list('topologySpreadConstraints', TopologySpreadConstraint),
  35: bool('setHostnameAsFQDN', KEEP),
  36: obj('os', message('PodOS', { 1: str('name', KEEP) })),
  37: bool('hostUsers', KEEP),
  38: list('schedulingGates', message('PodSchedulingGate', { 1: str('name', KEEP) })),
  39: list(
    'resourceClaims',
    message('PodResourceClaim', {
      1: str('name', KEEP),
      3: str('resourceClaimName', KEEP),
      4: str('resourceClaimTemplateName', KEEP),
    }),
  ),
  40: obj('resources', ResourceRequirements),
  41: str('hostnameOverride', KEEP),
});

export const PodTemplateSpec = message('PodTemplateSpec', {
  1: obj('metadata', ObjectMeta),
  2: obj('spec', PodSpec),
});

const ContainerState = message('ContainerState', {
  1: obj('waiting', message('ContainerStateWaiting', { 1: str('reason'), 2: str('message') })),
  2: obj('running', message('ContainerStateRunning', { 1: time('startedAt') })),
  3: obj(
    'terminated',
    message('ContainerStateTerminated', {
      1: i32('exitCode', KEEP),
      2: i32('signal'),
      3: str('reason'),
      4: str('message'),
      5: time('startedAt'),
      6: time('finishedAt'),
      7: str('containerID'),
    }),
  ),
});

export const ContainerStatus = message('ContainerStatus', {
  1: str('name', KEEP),
  2: obj('state', ContainerState),
  3: obj('lastState', ContainerState),
  4: bool('ready', KEEP),
  5: i32('restartCount', KEEP),
  6: str('image', KEEP),
  7: str('imageID', KEEP),
  8: str('containerID'),
  9: bool('started', KEEP),
  10: quantityMap('allocatedResources'),
  11: obj('resources', ResourceRequirements),
  12: list(
    'volumeMounts',
    message('VolumeMountStatus', {
      1: str('name', KEEP),
      2: str('mountPath', KEEP),
      3: bool('readOnly'),
      4: str('recursiveReadOnly', KEEP),
    }),
  ),
  15: str('stopSignal', KEEP),
});

export const PodCondition = message('PodCondition', {
  1: str('type', KEEP),
  7: i64('observedGeneration'),
  2: str('status', KEEP),
  3: time('lastProbeTime'),
  4: time('lastTransitionTime'),
  5: str('reason'),
  6: str('message'),
});

const IP = (name: string): MessageDesc => message(name, { 1: str('ip', KEEP) });

export const PodStatus = message('PodStatus', {
  17: i64('observedGeneration'),
  1: str('phase'),
  2: list('conditions', PodCondition),
  3: str('message'),
  4: str('reason'),
  11: str('nominatedNodeName'),
  5: str('hostIP'),
  16: list('hostIPs', IP('HostIP')),
  6: str('podIP'),
  12: list('podIPs', IP('PodIP')),
  7: time('startTime'),
  10: list('initContainerStatuses', ContainerStatus),
  8: list('containerStatuses', ContainerStatus),
  9: str('qosClass'),
  13: list('ephemeralContainerStatuses', ContainerStatus),
  14: str('resize'),
  15: list(
    'resourceClaimStatuses',
    message('PodResourceClaimStatus', { 1: str('name', KEEP), 2: str('resourceClaimName', KEEP) }),
  ),
  19: quantityMap('allocatedResources'),
  20: obj('resources', ResourceRequirements),
});

export const Pod = resource('Pod', ObjectMeta, PodSpec, PodStatus);
