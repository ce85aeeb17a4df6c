/**
 * What a default Knative install asks of `knative/` (issue 14, "Knative manifests that apply on a
 * default install"), checked over every document (pure):
 * - no `fieldRef` anywhere: knative/serving pkg/apis/config/features.go keeps
 *   `kubernetes.podspec-fieldref` Disabled and pkg/apis/serving/fieldmask.go drops the field (the
 *   functions read the Pod name from the hostname: shared/function/pod.ts);
 * - no Trigger retries while its first attempt still runs: its effective delivery (its own
 *   `spec.delivery`, else its Broker's, whole, as knative/eventing
 *   pkg/reconciler/broker/trigger/trigger.go chooses) has a per-attempt `timeout` no shorter than
 *   the subscriber Service's `timeoutSeconds` (none: no per-attempt limit); the Broker's own
 *   timeout covers its dead-letter sink Service;
 * - every container of every Knative Service runs non-root, without privilege escalation, with
 *   every capability dropped, the RuntimeDefault seccomp profile and a read-only root filesystem
 *   (no function writes files), all fields fieldmask.go allows without a flag; and asks for CPU and
 *   memory, with a memory limit;
 * - K_SINK is never set in a manifest: a SinkBinding puts it into the Services labelled
 *   `landscape.dev/emits: "true"` (each must be selected by one; local/knative/sinkbinding.ts);
 * - an ApiServerSource's ServiceAccount may get, list and watch what the source watches and
 *   nothing else (what knative/eventing pkg/reconciler/apiserversource/apiserversource.go
 *   runAccessCheck asks for; the namespaces of `namespaceSelector` are listed by Knative's own
 *   controller, so no `namespaces`);
 * - the weeder's source sends EndpointSlices only;
 * - a Service ticked every minute by a PingSource reaches zero between ticks: its
 *   `autoscaling.knative.dev/window` plus Knative's scale-to-zero grace period (30 s, the
 *   config-autoscaler default) plus its `scale-to-zero-pod-retention-period` is under a minute.
 */
import { parseKnativeDuration } from '../../local/activator/services.js';
import { parseSinkBinding, selects, type SinkBinding } from '../../local/knative/sinkbinding.js';
import { guessPlural } from '../../triggers/apiserver-source/events.js';
import { parseIsoDuration } from '../../triggers/broker/duration.js';
import {
  array,
  docsOf,
  isKnativeService,
  isRecord,
  KNATIVE_SERVICE_API,
  label,
  podSpec,
  record,
  refOf,
  text,
  type ManifestDoc,
  type PackagingSet,
} from './model.js';

type Docs = Pick<PackagingSet, 'manifests'>;
export const LABEL_EMITS = 'landscape.dev/emits';
const AUTOSCALING = 'autoscaling.knative.dev/';
/** config-autoscaler's scale-to-zero-grace-period default (knative/serving config/core/configmaps/autoscaler.yaml). */
export const SCALE_TO_ZERO_GRACE_MS = 30_000;
const MINUTE_MS = 60_000;

/** Every path under `value` whose key is `fieldRef`. */
export function fieldRefPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => fieldRefPaths(v, `${path}[${i}]`));
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const here = path ? `${path}.${k}` : k;
    return k === 'fieldRef' ? [here] : fieldRefPaths(v, here);
  });
}

function fieldRefProblems(set: Docs): string[] {
  return set.manifests.flatMap((d) =>
    fieldRefPaths(d.object).map(
      (p) => `${label(d)}: ${p}: no fieldRef (a default Knative install refuses kubernetes.podspec-fieldref)`,
    ),
  );
}

function knativeService(set: Docs, namespace: string | undefined, ref: unknown): ManifestDoc | undefined {
  const r = record(ref);
  if (r['kind'] !== 'Service' || (text(r['apiVersion']) ?? KNATIVE_SERVICE_API) !== KNATIVE_SERVICE_API)
    return undefined;
  const ns = text(r['namespace']) ?? namespace;
  return set.manifests.find(
    (d) => isKnativeService(d) && refOf(d).name === r['name'] && refOf(d).namespace === ns,
  );
}

function timeoutSecondsOf(service: ManifestDoc): number {
  const t = podSpec(service)['timeoutSeconds'];
  return typeof t === 'number' ? t : 300;
}

/** The per-attempt timeout in ms; undefined: none; NaN: not a duration. */
function attemptTimeout(delivery: Record<string, unknown>): number | undefined {
  const t = text(delivery['timeout']);
  if (t === undefined) return undefined;
  try {
    return parseIsoDuration(t);
  } catch {
    return Number.NaN;
  }
}

function timeoutProblem(where: string, delivery: Record<string, unknown>, service: ManifestDoc): string[] {
  const ms = attemptTimeout(delivery);
  const want = timeoutSecondsOf(service);
  if (ms === undefined || ms >= want * 1000) return [];
  return [
    `${where}: delivery timeout ${text(delivery['timeout'])} is shorter than Service ${refOf(service).name}'s timeoutSeconds ${want} (retries would run beside the first attempt)`,
  ];
}

function deliveryProblems(set: Docs): string[] {
  const spec = (d: ManifestDoc): Record<string, unknown> => record(d.object['spec']);
  const brokers = docsOf(set, 'Broker');
  const out: string[] = [];
  for (const t of docsOf(set, 'Trigger')) {
    const service = knativeService(set, refOf(t).namespace, record(spec(t)['subscriber'])['ref']);
    if (!service) continue;
    const own = spec(t)['delivery'];
    const broker = brokers.find(
      (b) => refOf(b).name === spec(t)['broker'] && refOf(b).namespace === refOf(t).namespace,
    );
    const where = isRecord(own) ? label(t) : `${label(t)} (its Broker's delivery)`;
    out.push(
      ...timeoutProblem(where, isRecord(own) ? own : record(broker && spec(broker)['delivery']), service),
    );
  }
  for (const b of brokers) {
    const delivery = record(spec(b)['delivery']);
    const dls = knativeService(set, refOf(b).namespace, record(delivery['deadLetterSink'])['ref']);
    if (dls) out.push(...timeoutProblem(`${label(b)} (to its deadLetterSink)`, delivery, dls));
  }
  return out;
}

/** What one container lacks of the securityContext and resources every container needs. */
export function containerProblems(container: Record<string, unknown>): string[] {
  const sc = record(container['securityContext']);
  const res = record(container['resources']);
  const requests = record(res['requests']);
  const rules: [boolean, string][] = [
    [sc['runAsNonRoot'] === true, 'securityContext.runAsNonRoot: true'],
    [sc['allowPrivilegeEscalation'] === false, 'securityContext.allowPrivilegeEscalation: false'],
    [array(record(sc['capabilities'])['drop']).includes('ALL'), 'securityContext.capabilities.drop: [ALL]'],
    [
      record(sc['seccompProfile'])['type'] === 'RuntimeDefault',
      'securityContext.seccompProfile.type: RuntimeDefault',
    ],
    [
      sc['readOnlyRootFilesystem'] === true,
      'securityContext.readOnlyRootFilesystem: true (no function writes files)',
    ],
    [
      requests['cpu'] !== undefined && requests['memory'] !== undefined,
      'resources.requests (cpu and memory)',
    ],
    [record(res['limits'])['memory'] !== undefined, 'resources.limits.memory'],
  ];
  return rules.filter(([ok]) => !ok).map(([, what]) => `needs ${what}`);
}

function containersOf(service: ManifestDoc): [string, Record<string, unknown>][] {
  const spec = podSpec(service);
  return (['initContainers', 'containers'] as const).flatMap((key) =>
    array(spec[key]).map((c, i): [string, Record<string, unknown>] => [`${key}[${i}]`, record(c)]),
  );
}

function securityProblems(set: Docs): string[] {
  return set.manifests
    .filter(isKnativeService)
    .flatMap((s) =>
      containersOf(s).flatMap(([at, c]) => containerProblems(c).map((p) => `${label(s)}: ${at}: ${p}`)),
    );
}

function serviceLabels(service: ManifestDoc): Record<string, string> {
  return record(record(service.object['metadata'])['labels']) as Record<string, string>;
}

function bindings(set: Docs): { bindings: SinkBinding[]; problems: string[] } {
  const brokers = new Set(docsOf(set, 'Broker').map((b) => `${refOf(b).namespace ?? ''}/${refOf(b).name}`));
  const out: SinkBinding[] = [];
  const problems: string[] = [];
  for (const d of docsOf(set, 'SinkBinding')) {
    const r = parseSinkBinding(d.object, brokers);
    problems.push(...r.problems.map((p) => `${d.file}: ${p}`));
    if (r.binding) out.push(r.binding);
  }
  return { bindings: out, problems };
}

/** Whether a SinkBinding of the set selects the Knative Service (so it gets K_SINK). */
export function isSinkBound(set: Docs, service: ManifestDoc): boolean {
  const r = refOf(service);
  const s = { name: r.name, namespace: r.namespace ?? 'default' };
  return bindings(set).bindings.some((b) => selects(b, s, serviceLabels(service)));
}

function sinkProblems(set: Docs): string[] {
  const { problems } = bindings(set);
  for (const s of set.manifests.filter(isKnativeService)) {
    for (const [at, c] of containersOf(s))
      if (array(c['env']).some((e) => record(e)['name'] === 'K_SINK'))
        problems.push(
          `${label(s)}: ${at}: sets K_SINK; a SinkBinding gives it (label ${LABEL_EMITS}: "true")`,
        );
    if (serviceLabels(s)[LABEL_EMITS] === 'true' && !isSinkBound(set, s))
      problems.push(
        `${label(s)}: labelled ${LABEL_EMITS} but no SinkBinding selects it (it would have no K_SINK)`,
      );
  }
  return problems;
}

function bindingsOf(set: Docs, sa: string, namespace: string | undefined): ManifestDoc[] {
  return [...docsOf(set, 'RoleBinding'), ...docsOf(set, 'ClusterRoleBinding')].filter((b) =>
    array(b.object['subjects']).some((x) => {
      const s = record(x);
      return (
        s['kind'] === 'ServiceAccount' &&
        s['name'] === sa &&
        (text(s['namespace']) ?? refOf(b).namespace) === namespace
      );
    }),
  );
}

function roleOf(set: Docs, binding: ManifestDoc): ManifestDoc | undefined {
  const ref = record(binding.object['roleRef']);
  const kind = text(ref['kind']) ?? '';
  const ns = kind === 'Role' ? refOf(binding).namespace : undefined;
  return docsOf(set, kind).find((r) => refOf(r).name === ref['name'] && refOf(r).namespace === ns);
}

const SOURCE_VERBS = ['get', 'list', 'watch'];

/** What a rule grants beyond get/list/watch of the watched resources. */
export function ruleExcess(rule: Record<string, unknown>, watched: ReadonlySet<string>): string[] {
  const groups = array(rule['apiGroups']).map(String);
  const out: string[] = [];
  for (const res of array(rule['resources']).map(String))
    for (const g of groups) if (!watched.has(`${g}/${res}`)) out.push(`${res} (${g || 'core'})`);
  const verbs = array(rule['verbs'])
    .map(String)
    .filter((v) => !SOURCE_VERBS.includes(v));
  return [...out, ...verbs.map((v) => `verb ${v}`)];
}

function watchedOf(source: ManifestDoc): Set<string> {
  return new Set(
    array(record(source.object['spec'])['resources']).map((x) => {
      const r = record(x);
      const api = text(r['apiVersion']) ?? '';
      const group = api.includes('/') ? api.split('/')[0] : '';
      return `${group}/${guessPlural(text(r['kind']) ?? '')}`;
    }),
  );
}

function sourceRbacProblems(set: Docs): string[] {
  const out: string[] = [];
  for (const src of docsOf(set, 'ApiServerSource')) {
    const sa = text(record(src.object['spec'])['serviceAccountName']) ?? 'default';
    const watched = watchedOf(src);
    for (const binding of bindingsOf(set, sa, refOf(src).namespace)) {
      const role = roleOf(set, binding);
      const excess = array(role?.object['rules']).flatMap((r) => ruleExcess(record(r), watched));
      if (role && excess.length > 0)
        out.push(
          `${label(role)}: grants the source's ServiceAccount ${sa} more than it watches: ${[...new Set(excess)].join(', ')}`,
        );
    }
  }
  return out;
}

function weederProblems(set: Docs): string[] {
  const weeder = docsOf(set, 'ApiServerSource').filter((d) => refOf(d).name === 'weeder');
  return weeder.flatMap((d) => {
    const kinds = array(record(d.object['spec'])['resources']).map(
      (r) => `${text(record(r)['apiVersion'])} ${text(record(r)['kind'])}`,
    );
    return kinds.length === 1 && kinds[0] === 'discovery.k8s.io/v1 EndpointSlice'
      ? []
      : [
          `${label(d)}: the weeder's source sends EndpointSlices (discovery.k8s.io/v1) only, found ${kinds.join(', ')}`,
        ];
  });
}

/** The Services a Trigger for a PingSource ticking every minute subscribes. */
function tickedServices(set: Docs): ManifestDoc[] {
  const everyMinute = new Set(
    docsOf(set, 'PingSource')
      .filter((p) => text(record(p.object['spec'])['schedule'])?.trim() === '* * * * *')
      .map((p) => `/apis/v1/namespaces/${refOf(p).namespace ?? ''}/pingsources/${refOf(p).name}`),
  );
  const out = new Set<ManifestDoc>();
  for (const t of docsOf(set, 'Trigger')) {
    const spec = record(t.object['spec']);
    const filters = [
      record(spec['filter'])['attributes'],
      ...array(spec['filters']).map((f) => record(f)['exact']),
    ];
    if (!filters.some((f) => everyMinute.has(text(record(f)['source']) ?? ''))) continue;
    const s = knativeService(set, refOf(t).namespace, record(spec['subscriber'])['ref']);
    if (s) out.add(s);
  }
  return [...out];
}

/** Why a ticked Service would not reach zero between one-minute ticks ([] when it does). */
export function tickScaleProblems(annotations: Record<string, unknown>): string[] {
  const window = text(annotations[`${AUTOSCALING}window`]);
  const retention = text(annotations[`${AUTOSCALING}scale-to-zero-pod-retention-period`]);
  if (window === undefined || retention === undefined)
    return [`needs annotations ${AUTOSCALING}window and ${AUTOSCALING}scale-to-zero-pod-retention-period`];
  const total =
    (parseKnativeDuration(window) ?? MINUTE_MS) +
    SCALE_TO_ZERO_GRACE_MS +
    (parseKnativeDuration(retention) ?? MINUTE_MS);
  return total < MINUTE_MS
    ? []
    : [
        `window ${window} + grace 30s + retention ${retention} is not under a minute: it never reaches zero between ticks`,
      ];
}

function tickProblems(set: Docs): string[] {
  return tickedServices(set).flatMap((s) => {
    const annotations = record(
      record(record(record(s.object['spec'])['template'])['metadata'])['annotations'],
    );
    return tickScaleProblems(annotations).map((p) => `${label(s)}: ticked every minute: ${p}`);
  });
}

/** Every problem of `knative/` on a default Knative install. */
export function platformProblems(set: Docs): string[] {
  return [
    ...fieldRefProblems(set),
    ...deliveryProblems(set),
    ...securityProblems(set),
    ...sinkProblems(set),
    ...sourceRbacProblems(set),
    ...weederProblems(set),
    ...tickProblems(set),
  ];
}
