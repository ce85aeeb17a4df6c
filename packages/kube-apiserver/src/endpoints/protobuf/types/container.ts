/**
 * k8s.io/api/core/v1 (generated.proto): Container with its ports, environment, resources, volume
 * mounts, probes, lifecycle hooks and security context.
 */
import {
  bool,
  i32,
  i64,
  inline,
  intOrString,
  ints,
  KEEP,
  list,
  message,
  obj,
  quantity,
  quantityMap,
  str,
  strs,
} from '../descriptor.js';

export const LocalObjectReference = message('LocalObjectReference', { 1: str('name') });

export const ObjectFieldSelector = message('ObjectFieldSelector', {
  1: str('apiVersion'),
  2: str('fieldPath', KEEP),
});

export const ResourceFieldSelector = message('ResourceFieldSelector', {
  1: str('containerName'),
  2: str('resource', KEEP),
  3: quantity('divisor'),
});

const keySelector = (name: string): ReturnType<typeof message> =>
  message(name, { 1: inline(LocalObjectReference), 2: str('key', KEEP), 3: bool('optional', KEEP) });

export const ConfigMapKeySelector = keySelector('ConfigMapKeySelector');
export const SecretKeySelector = keySelector('SecretKeySelector');

export const FileKeySelector = message('FileKeySelector', {
  1: str('volumeName', KEEP),
  2: str('path', KEEP),
  3: str('key', KEEP),
  4: bool('optional', KEEP),
});

export const EnvVarSource = message('EnvVarSource', {
  1: obj('fieldRef', ObjectFieldSelector),
  2: obj('resourceFieldRef', ResourceFieldSelector),
  3: obj('configMapKeyRef', ConfigMapKeySelector),
  4: obj('secretKeyRef', SecretKeySelector),
  5: obj('fileKeyRef', FileKeySelector),
});

export const EnvVar = message('EnvVar', {
  1: str('name', KEEP),
  2: str('value'),
  3: obj('valueFrom', EnvVarSource),
});

const envSource = (name: string): ReturnType<typeof message> =>
  message(name, { 1: inline(LocalObjectReference), 2: bool('optional', KEEP) });

export const EnvFromSource = message('EnvFromSource', {
  1: str('prefix'),
  2: obj('configMapRef', envSource('ConfigMapEnvSource')),
  3: obj('secretRef', envSource('SecretEnvSource')),
});

export const ContainerPort = message('ContainerPort', {
  1: str('name'),
  2: i32('hostPort'),
  3: i32('containerPort', KEEP),
  4: str('protocol'),
  5: str('hostIP'),
});

export const ResourceClaim = message('ResourceClaim', { 1: str('name', KEEP), 2: str('request') });

export const ResourceRequirements = message('ResourceRequirements', {
  1: quantityMap('limits'),
  2: quantityMap('requests'),
  3: list('claims', ResourceClaim),
});

export const ContainerResizePolicy = message('ContainerResizePolicy', {
  1: str('resourceName', KEEP),
  2: str('restartPolicy', KEEP),
});

export const ContainerRestartRule = message('ContainerRestartRule', {
  1: str('action', KEEP),
  2: obj(
    'exitCodes',
    message('ContainerRestartRuleOnExitCodes', { 1: str('operator', KEEP), 2: ints('values') }),
  ),
});

export const VolumeMount = message('VolumeMount', {
  1: str('name', KEEP),
  2: bool('readOnly'),
  7: str('recursiveReadOnly', KEEP),
  3: str('mountPath', KEEP),
  4: str('subPath'),
  5: str('mountPropagation', KEEP),
  6: str('subPathExpr'),
});

export const VolumeDevice = message('VolumeDevice', { 1: str('name', KEEP), 2: str('devicePath', KEEP) });

export const ExecAction = message('ExecAction', { 1: strs('command') });

export const HTTPGetAction = message('HTTPGetAction', {
  1: str('path'),
  2: intOrString('port'),
  3: str('host'),
  4: str('scheme'),
  5: list('httpHeaders', message('HTTPHeader', { 1: str('name', KEEP), 2: str('value', KEEP) })),
});

export const TCPSocketAction = message('TCPSocketAction', { 1: intOrString('port'), 2: str('host') });

export const ProbeHandler = message('ProbeHandler', {
  1: obj('exec', ExecAction),
  2: obj('httpGet', HTTPGetAction),
  3: obj('tcpSocket', TCPSocketAction),
  4: obj('grpc', message('GRPCAction', { 1: i32('port', KEEP), 2: str('service', KEEP) })),
});

export const Probe = message('Probe', {
  1: inline(ProbeHandler),
  2: i32('initialDelaySeconds'),
  3: i32('timeoutSeconds'),
  4: i32('periodSeconds'),
  5: i32('successThreshold'),
  6: i32('failureThreshold'),
  7: i64('terminationGracePeriodSeconds', KEEP),
});

export const LifecycleHandler = message('LifecycleHandler', {
  1: obj('exec', ExecAction),
  2: obj('httpGet', HTTPGetAction),
  3: obj('tcpSocket', TCPSocketAction),
  4: obj('sleep', message('SleepAction', { 1: i64('seconds', KEEP) })),
});

export const Lifecycle = message('Lifecycle', {
  1: obj('postStart', LifecycleHandler),
  2: obj('preStop', LifecycleHandler),
  3: str('stopSignal', KEEP),
});

export const SELinuxOptions = message('SELinuxOptions', {
  1: str('user'),
  2: str('role'),
  3: str('type'),
  4: str('level'),
});

export const WindowsSecurityContextOptions = message('WindowsSecurityContextOptions', {
  1: str('gmsaCredentialSpecName', KEEP),
  2: str('gmsaCredentialSpec', KEEP),
  3: str('runAsUserName', KEEP),
  4: bool('hostProcess', KEEP),
});

export const SeccompProfile = message('SeccompProfile', {
  1: str('type', KEEP),
  2: str('localhostProfile', KEEP),
});
export const AppArmorProfile = message('AppArmorProfile', {
  1: str('type', KEEP),
  2: str('localhostProfile', KEEP),
});

export const SecurityContext = message('SecurityContext', {
  1: obj('capabilities', message('Capabilities', { 1: strs('add'), 2: strs('drop') })),
  2: bool('privileged', KEEP),
  3: obj('seLinuxOptions', SELinuxOptions),
  10: obj('windowsOptions', WindowsSecurityContextOptions),
  4: i64('runAsUser', KEEP),
  8: i64('runAsGroup', KEEP),
  5: bool('runAsNonRoot', KEEP),
  6: bool('readOnlyRootFilesystem', KEEP),
  7: bool('allowPrivilegeEscalation', KEEP),
  9: str('procMount', KEEP),
  11: obj('seccompProfile', SeccompProfile),
  12: obj('appArmorProfile', AppArmorProfile),
  13: list(
    'ulimits',
    message('Ulimit', { 1: str('name', KEEP), 2: i64('hard', KEEP), 3: i64('soft', KEEP) }),
  ),
});

/** Container; EphemeralContainerCommon has the same fields under the same numbers. */
export const Container = message('Container', {
  1: str('name', KEEP),
  2: str('image'),
  3: strs('command'),
  4: strs('args'),
  5: str('workingDir'),
  6: list('ports', ContainerPort),
  19: list('envFrom', EnvFromSource),
  7: list('env', EnvVar),
  8: obj('resources', ResourceRequirements),
  23: list('resizePolicy', ContainerResizePolicy),
  24: str('restartPolicy', KEEP),
  25: list('restartPolicyRules', ContainerRestartRule),
  9: list('volumeMounts', VolumeMount),
  21: list('volumeDevices', VolumeDevice),
  10: obj('livenessProbe', Probe),
  11: obj('readinessProbe', Probe),
  22: obj('startupProbe', Probe),
  12: obj('lifecycle', Lifecycle),
  13: str('terminationMessagePath'),
  20: str('terminationMessagePolicy'),
  14: str('imagePullPolicy'),
  15: obj('securityContext', SecurityContext),
  16: bool('stdin'),
  17: bool('stdinOnce'),
  18: bool('tty'),
});

export const EphemeralContainer = message('EphemeralContainer', {
  1: inline(Container),
  2: str('targetContainerName'),
});
