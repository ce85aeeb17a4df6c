/**
 * The strategy of core/v1 Service (k8s.io/kubernetes pkg/registry/core/service/strategy.go and
 * storage/storage.go with alloc.go) with its defaults (pkg/apis/core/v1/defaults.go
 * SetDefaults_Service) and validation (pkg/apis/core/validation/validation.go ValidateService,
 * ValidateServiceUpdate, validateUpgradeDowngradeClusterIPs): type ClusterIP, sessionAffinity None,
 * targetPort = port, internalTrafficPolicy Cluster; a cluster IP from the service CIDR
 * (./service-ip.ts) with ipFamilies [IPv4] / SingleStack (headless: `None`; headless without
 * selector: RequireDualStack); node ports for NodePort and LoadBalancer Services; an update keeps
 * the allocated values it does not name and may not change them.
 *
 * Where the product differs: single-stack IPv4 only; no dual-stack allocation.
 */
import { invalid, type FieldError } from '../api/errors.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
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
import type { KindStrategy, StrategyContext } from './rest-strategy.js';
import {
  allocateClusterIP,
  allocateNodePort,
  clusterIPProblem,
  isIPv4,
  KUBERNETES_SERVICE_IP,
} from './service-ip.js';

type Obj = Record<string, unknown>;

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const AFFINITIES = ['ClientIP', 'None'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

const specOf = (obj: KubeObject): Obj => record(obj.spec) ?? {};
const usesNodePorts = (spec: Obj): boolean => spec.type === 'NodePort' || spec.type === 'LoadBalancer';

/** The cluster IPs and node ports of the cluster's stored Services (but `self`). */
function taken(ctx: StrategyContext | undefined, self: KubeObject): { ips: Set<string>; ports: Set<number> } {
  const ips = new Set<string>();
  const ports = new Set<number>();
  for (const svc of ctx?.list('/services') ?? []) {
    if (svc.metadata.uid === self.metadata.uid) continue;
    const spec = specOf(svc);
    for (const ip of (spec.clusterIPs as string[] | undefined) ?? []) ips.add(ip);
    for (const p of records(spec.ports)) if (typeof p.nodePort === 'number') ports.add(p.nodePort);
  }
  return { ips, ports };
}

/** SetDefaults_Service (the fields that do not need an allocator). */
export function defaultServiceSpec(spec: Obj): Obj {
  const out: Obj = { type: 'ClusterIP', sessionAffinity: 'None', ...spec };
  if (out.sessionAffinity === 'ClientIP' && out.sessionAffinityConfig === undefined)
    out.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  if (Array.isArray(spec.ports))
    out.ports = records(spec.ports).map((p) => ({
      protocol: 'TCP',
      ...p,
      targetPort: p.targetPort ?? p.port,
    }));
  if (out.type === 'ExternalName') return out;
  out.internalTrafficPolicy ??= 'Cluster';
  if (usesNodePorts(out)) out.externalTrafficPolicy ??= 'Cluster';
  if (out.type === 'LoadBalancer') out.allocateLoadBalancerNodePorts ??= true;
  return out;
}

function headless(spec: Obj): boolean {
  return spec.clusterIP === 'None';
}

/** A headless Service's IP fields (selectorless ones ask for both families, as upstream). */
function headlessSpec(spec: Obj): Obj {
  const selectorless = record(spec.selector) === undefined;
  return {
    ...spec,
    clusterIP: 'None',
    clusterIPs: ['None'],
    ipFamilyPolicy: spec.ipFamilyPolicy ?? (selectorless ? 'RequireDualStack' : 'SingleStack'),
    ipFamilies: spec.ipFamilies ?? (selectorless ? ['IPv4', 'IPv6'] : ['IPv4']),
  };
}

/** The cluster IP to give: the requested one (checked) or a free one (10.96.0.1 for default/kubernetes). */
function pickIP(
  obj: KubeObject,
  requested: string | undefined,
  ips: Set<string>,
): { ip: string; errors: FieldError[] } {
  if (requested && !isIPv4(requested)) {
    const detail = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
    return { ip: requested, errors: [invalidField('spec.clusterIPs[0]', requested, detail)] };
  }
  if (requested) return { ip: requested, errors: clusterIPProblem(requested, ips, [requested]) };
  const isKubernetes = obj.metadata.namespace === 'default' && obj.metadata.name === 'kubernetes';
  const ip = isKubernetes && !ips.has(KUBERNETES_SERVICE_IP) ? KUBERNETES_SERVICE_IP : allocateClusterIP(ips);
  return { ip, errors: [] };
}

/** The cluster IP fields of a Service that is not ExternalName: allocated, checked, with their families. */
function withClusterIP(obj: KubeObject, spec: Obj, ips: Set<string>): { spec: Obj; errors: FieldError[] } {
  const requested = (spec.clusterIP as string | undefined) || (spec.clusterIPs as string[] | undefined)?.[0];
  if (requested === 'None') return { spec: headlessSpec(spec), errors: [] };
  const { ip, errors } = pickIP(obj, requested, ips);
  return {
    spec: { ...spec, clusterIP: ip, clusterIPs: [ip], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' },
    errors,
  };
}

function withNodePorts(spec: Obj, ports: Set<number>): Obj {
  if (!usesNodePorts(spec) || !Array.isArray(spec.ports)) return spec;
  return {
    ...spec,
    ports: records(spec.ports).map((p) => {
      if (typeof p.nodePort === 'number') return p;
      const nodePort = allocateNodePort(ports);
      ports.add(nodePort);
      return { ...p, nodePort };
    }),
  };
}

/** The Service to create: defaults and allocations (throws 422 when a requested cluster IP cannot be had). */
export function prepareServiceCreate(def: ResourceDef, obj: KubeObject, ctx?: StrategyContext): KubeObject {
  let spec = defaultServiceSpec(specOf(obj));
  const { ips, ports } = taken(ctx, obj);
  if (spec.type !== 'ExternalName') {
    const allocated = withClusterIP(obj, spec, ips);
    if (allocated.errors.length)
      throw invalid(def.kind, def.group, obj.metadata.name ?? '', allocated.errors);
    spec = withNodePorts(allocated.spec, ports);
  }
  const out: KubeObject = { ...obj, spec, status: { loadBalancer: {} } };
  return out;
}

/** NormalizeClusterIPs and patchAllocatedValues' cluster IP part (for a Service that stays non-ExternalName). */
function keepClusterIP(spec: Obj, old: Obj): Obj {
  const out = {
    ...spec,
    ipFamilies: spec.ipFamilies ?? old.ipFamilies,
    ipFamilyPolicy: spec.ipFamilyPolicy ?? old.ipFamilyPolicy,
  };
  const ips = spec.clusterIPs as unknown[] | undefined;
  if (!spec.clusterIP && !ips?.length)
    return { ...out, clusterIP: old.clusterIP, clusterIPs: old.clusterIPs };
  if (!ips?.length) return { ...out, clusterIPs: [spec.clusterIP] };
  if (spec.clusterIP !== old.clusterIP && JSON.stringify(ips) === JSON.stringify(old.clusterIPs))
    return { ...out, clusterIPs: [spec.clusterIP] };
  return out;
}

/** patchAllocatedValues' node port part: a port without nodePort keeps the one it had. */
function keepNodePorts(spec: Obj, old: Obj): Obj {
  if (!Array.isArray(spec.ports) || !usesNodePorts(spec)) return spec;
  const oldPorts = records(old.ports);
  const ports = records(spec.ports).map((p) => {
    const match = oldPorts.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
    return p.nodePort === undefined && match?.nodePort !== undefined ? { ...p, nodePort: match.nodePort } : p;
  });
  return { ...spec, ports };
}

const IP_FIELDS = ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy'];

/** The Service to store for an update: allocated values kept, defaults, new allocations where needed. */
export function prepareServiceUpdate(prev: KubeObject, next: KubeObject, ctx?: StrategyContext): KubeObject {
  const old = specOf(prev);
  const wasExternal = old.type === 'ExternalName';
  let spec: Obj = specOf(next);
  if (!wasExternal && spec.type !== 'ExternalName') spec = keepClusterIP(spec, old);
  spec = defaultServiceSpec(keepNodePorts(spec, old));
  const { ips, ports } = taken(ctx, prev);
  if (spec.type === 'ExternalName')
    spec = Object.fromEntries(Object.entries(spec).filter(([k]) => !IP_FIELDS.includes(k)));
  else if (wasExternal || !spec.clusterIP) spec = withNodePorts(withClusterIP(prev, spec, ips).spec, ports);
  else spec = withNodePorts(spec, ports);
  return { ...next, spec };
}

function portErrors(p: Obj, at: string): FieldError[] {
  const errors = portNumber(`${at}.port`, p.port);
  if (!PROTOCOLS.includes(p.protocol as string))
    errors.push(notSupported(`${at}.protocol`, p.protocol, PROTOCOLS));
  if (typeof p.targetPort === 'number') errors.push(...portNumber(`${at}.targetPort`, p.targetPort));
  else if (typeof p.targetPort === 'string') errors.push(...portName(`${at}.targetPort`, p.targetPort));
  if (typeof p.nodePort === 'number' && p.nodePort !== 0)
    errors.push(...portNumber(`${at}.nodePort`, p.nodePort));
  return errors;
}

function validatePorts(spec: Obj): FieldError[] {
  const ports = records(spec.ports);
  const errors: FieldError[] = [];
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const at = `spec.ports[${i}]`;
    if (typeof p.name === 'string' && p.name !== '') {
      errors.push(...dns1123Label(`${at}.name`, p.name));
      if (names.has(p.name)) errors.push(duplicate(`${at}.name`, p.name));
      names.add(p.name);
    } else if (ports.length > 1) errors.push(required(`${at}.name`));
    errors.push(...portErrors(p, at));
    const key = JSON.stringify({ port: p.port, protocol: p.protocol });
    if (seen.has(key)) errors.push(duplicate(at, { port: p.port, protocol: p.protocol }));
    seen.add(key);
  });
  return errors;
}

/** ValidateService's spec rules (type, ports, affinity, ExternalName). */
export function serviceErrors(spec: Obj): FieldError[] {
  const errors: FieldError[] = [];
  if (!TYPES.includes(spec.type as string)) errors.push(notSupported('spec.type', spec.type, TYPES));
  if (spec.type === 'ExternalName') {
    if (!spec.externalName) errors.push(required('spec.externalName'));
  } else if (records(spec.ports).length === 0 && !headless(spec)) errors.push(required('spec.ports'));
  if (!AFFINITIES.includes(spec.sessionAffinity as string))
    errors.push(notSupported('spec.sessionAffinity', spec.sessionAffinity, AFFINITIES));
  errors.push(...validatePorts(spec));
  return errors;
}

/** validateUpgradeDowngradeClusterIPs: an allocated cluster IP never changes (except from/to ExternalName). */
export function serviceUpdateErrors(next: Obj, prev: Obj): FieldError[] {
  if (next.type === 'ExternalName' || prev.type === 'ExternalName') return [];
  const now = (next.clusterIPs as string[] | undefined) ?? [];
  const before = (prev.clusterIPs as string[] | undefined) ?? [];
  return before.flatMap((ip, i) =>
    now.length > i && now[i] !== ip
      ? [invalidField(`spec.clusterIPs[${i}]`, now, 'may not change once set')]
      : [],
  );
}

function check(def: ResourceDef, obj: KubeObject, errors: FieldError[]): void {
  if (errors.length) throw invalid(def.kind, def.group, obj.metadata.name ?? '', errors);
}

/** core/v1 Service writes (the table adds its field label wording). */
export const SERVICE_RULES: KindStrategy = {
  prepareForCreate: prepareServiceCreate,
  validateCreate: (def, obj) => check(def, obj, serviceErrors(specOf(obj))),
  prepareForUpdate: (_def, prev, next, ctx) =>
    prepareServiceUpdate(prev, { ...next, status: prev.status }, ctx),
  validateUpdate: (def, prev, next) =>
    check(def, next, [...serviceUpdateErrors(specOf(next), specOf(prev)), ...serviceErrors(specOf(next))]),
};
