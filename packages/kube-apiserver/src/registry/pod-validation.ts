/**
 * Validation of a pod spec as kube-apiserver does it for a Pod and for the pod template of a
 * workload (k8s.io/kubernetes pkg/apis/core/validation/validation.go: ValidatePodSpec,
 * validateContainers, validateInitContainers, validateContainerPorts, ValidateEnv, ValidateVolumes,
 * validateRestartPolicy, validateDNSPolicy, validatePullPolicy), with the same field paths and
 * wording. Pure; `path` is where the spec sits (`spec`, `spec.template.spec`).
 *
 * Where the product differs: only these rules are checked — container and volume names, images,
 * ports, env names, pull, restart and DNS policies; not resources, probes, security contexts,
 * volume sources or volume mounts.
 */
import type { FieldError } from '../api/errors.js';
import {
  dns1123Label,
  duplicate,
  invalidField,
  notSupported,
  portName,
  portNumber,
  record,
  records,
  required,
} from './field-rules.js';

type Obj = Record<string, unknown>;

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const ENV_NAME_MSG =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

function validatePorts(ports: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  records(ports).forEach((port, i) => {
    const at = `${path}[${i}]`;
    if (typeof port.name === 'string' && port.name !== '') {
      errors.push(...portName(`${at}.name`, port.name));
      if (names.has(port.name)) errors.push(duplicate(`${at}.name`, port.name));
      names.add(port.name);
    }
    if (port.containerPort === undefined || port.containerPort === 0)
      errors.push(required(`${at}.containerPort`));
    else errors.push(...portNumber(`${at}.containerPort`, port.containerPort));
    if (port.hostPort !== undefined && port.hostPort !== 0)
      errors.push(...portNumber(`${at}.hostPort`, port.hostPort));
    if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol as string))
      errors.push(notSupported(`${at}.protocol`, port.protocol, PROTOCOLS));
  });
  return errors;
}

function validateEnv(env: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  records(env).forEach((e, i) => {
    if (typeof e.name !== 'string' || e.name === '') errors.push(required(`${path}[${i}].name`));
    else if (!ENV_NAME.test(e.name)) errors.push(invalidField(`${path}[${i}].name`, e.name, ENV_NAME_MSG));
  });
  return errors;
}

function validateContainer(c: Obj, at: string, names: Set<string>): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof c.name !== 'string' || c.name === '') errors.push(required(`${at}.name`));
  else {
    errors.push(...dns1123Label(`${at}.name`, c.name));
    if (names.has(c.name)) errors.push(duplicate(`${at}.name`, c.name));
    names.add(c.name);
  }
  if (typeof c.image !== 'string' || c.image.trim() === '') errors.push(required(`${at}.image`));
  if (c.imagePullPolicy !== undefined && !PULL_POLICIES.includes(c.imagePullPolicy as string))
    errors.push(notSupported(`${at}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES));
  errors.push(...validatePorts(c.ports, `${at}.ports`));
  errors.push(...validateEnv(c.env, `${at}.env`));
  return errors;
}

function validateVolumes(volumes: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  records(volumes).forEach((v, i) => {
    const at = `${path}[${i}].name`;
    if (typeof v.name !== 'string' || v.name === '') return void errors.push(required(at));
    errors.push(...dns1123Label(at, v.name));
    if (names.has(v.name)) errors.push(duplicate(at, v.name));
    names.add(v.name);
  });
  return errors;
}

function validatePolicies(spec: Obj, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (spec.restartPolicy !== undefined && !RESTART_POLICIES.includes(spec.restartPolicy as string))
    errors.push(notSupported(`${path}.restartPolicy`, spec.restartPolicy, RESTART_POLICIES));
  if (spec.dnsPolicy !== undefined && !DNS_POLICIES.includes(spec.dnsPolicy as string))
    errors.push(notSupported(`${path}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES));
  return errors;
}

/** ValidatePodSpec (the rules listed in the header). */
export function validatePodSpec(spec: unknown, path: string): FieldError[] {
  const s = record(spec) ?? {};
  const errors = validateVolumes(s.volumes, `${path}.volumes`);
  const names = new Set<string>();
  records(s.initContainers).forEach((c, i) =>
    errors.push(...validateContainer(c, `${path}.initContainers[${i}]`, names)),
  );
  const containers = records(s.containers);
  if (containers.length === 0) errors.push(required(`${path}.containers`));
  containers.forEach((c, i) => errors.push(...validateContainer(c, `${path}.containers[${i}]`, names)));
  errors.push(...validatePolicies(s, path));
  return errors;
}
