/**
 * The defaults kube-apiserver gives a pod spec on every write, in a Pod and in the pod template of
 * a workload (k8s.io/kubernetes pkg/apis/core/v1/defaults.go: SetDefaults_PodSpec,
 * SetDefaults_Container, SetDefaults_Probe, SetDefaults_HTTPGetAction, SetDefaults_ObjectFieldSelector,
 * SetDefaults_SecretVolumeSource, SetDefaults_ConfigMapVolumeSource, SetDefaults_ProjectedVolumeSource;
 * and SetDefaults_Pod for Pods only). Pure: the input is not changed.
 *
 * A Pod also gets what the Priority admission plugin sets without PriorityClasses (priority 0,
 * preemptionPolicy PreemptLowerPriority). Where the product differs: the other admission plugins'
 * additions (ServiceAccount's token volume, DefaultTolerationSeconds' tolerations) are not made.
 */
import { record, records } from './field-rules.js';

type Obj = Record<string, unknown>;

const DEFAULT_MODE = 420;

/** SetDefaults_Container's imagePullPolicy: Always for `:latest` or no tag (and no digest), else IfNotPresent. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const [named, digest] = image.split('@', 2);
  const last = named.slice(named.lastIndexOf('/') + 1);
  const colon = last.indexOf(':');
  const tag = colon >= 0 ? last.slice(colon + 1) : digest === undefined ? 'latest' : '';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(probe: unknown): unknown {
  const p = record(probe);
  if (!p) return probe;
  const out: Obj = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, ...p };
  const httpGet = record(p.httpGet);
  if (httpGet) out.httpGet = { path: '/', scheme: 'HTTP', ...httpGet };
  return out;
}

function defaultEnv(env: unknown): unknown {
  if (!Array.isArray(env)) return env;
  return records(env).map((e) => {
    const fieldRef = record(record(e.valueFrom)?.fieldRef);
    if (!fieldRef || fieldRef.apiVersion !== undefined) return e;
    return { ...e, valueFrom: { ...record(e.valueFrom), fieldRef: { apiVersion: 'v1', ...fieldRef } } };
  });
}

function defaultContainer(container: Obj): Obj {
  const out: Obj = {
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    resources: {},
    ...container,
  };
  if (out.imagePullPolicy === undefined && typeof out.image === 'string')
    out.imagePullPolicy = defaultPullPolicy(out.image);
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'])
    if (out[probe] !== undefined) out[probe] = defaultProbe(out[probe]);
  if (out.env !== undefined) out.env = defaultEnv(out.env);
  return out;
}

function defaultVolume(volume: Obj): Obj {
  const out = { ...volume };
  for (const source of ['secret', 'configMap', 'projected']) {
    const s = record(out[source]);
    if (s && s.defaultMode === undefined) out[source] = { ...s, defaultMode: DEFAULT_MODE };
  }
  return out;
}

/** SetDefaults_PodSpec and the defaults of its containers and volumes. */
export function defaultPodSpec(spec: unknown): unknown {
  const s = record(spec);
  if (!s) return spec;
  const out: Obj = {
    dnsPolicy: 'ClusterFirst',
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    securityContext: {},
    schedulerName: 'default-scheduler',
    ...s,
  };
  if (Array.isArray(s.containers)) out.containers = records(s.containers).map(defaultContainer);
  if (Array.isArray(s.initContainers)) out.initContainers = records(s.initContainers).map(defaultContainer);
  if (Array.isArray(s.volumes)) out.volumes = records(s.volumes).map(defaultVolume);
  return out;
}

/** The pod template of a workload (`spec.template`) with its pod spec defaulted. */
export function defaultPodTemplate(template: unknown): unknown {
  const t = record(template);
  return t ? { ...t, spec: defaultPodSpec(t.spec ?? {}) } : template;
}

/** SetDefaults_Pod on top of the pod spec defaults (enableServiceLinks), and Priority admission's fields. */
export function defaultPod(spec: unknown): unknown {
  const s = record(defaultPodSpec(spec));
  return s ? { enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority', priority: 0, ...s } : spec;
}
