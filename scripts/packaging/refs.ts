/**
 * Checks over the documents of `knative/` (pure): the folder and label conventions, and that every
 * reference (Trigger broker and subscriber, dead-letter sinks, source sinks, ServiceAccounts,
 * RBAC bindings) names a document that is there, in the same family or the runtime family.
 */
import {
  array,
  CLUSTER_SCOPED_KINDS,
  label,
  LABEL_FAMILY,
  LABEL_PART_OF,
  PART_OF,
  record,
  refOf,
  RUNTIME_FAMILY,
  text,
  type ManifestDoc,
  type PackagingSet,
} from './model.js';

/** ClusterRoles every cluster has; a binding may name them without shipping them. */
const WELL_KNOWN_CLUSTER_ROLES = /^(view|edit|admin|cluster-admin|system:.+)$/;

function labelProblems(doc: ManifestDoc): string[] {
  const labels = record(record(doc.object['metadata'])['labels']);
  const out: string[] = [];
  if (labels[LABEL_FAMILY] !== doc.family)
    out.push(`${label(doc)}: label ${LABEL_FAMILY} must be "${doc.family}" (its folder)`);
  if (labels[LABEL_PART_OF] !== PART_OF)
    out.push(`${label(doc)}: label ${LABEL_PART_OF} must be "${PART_OF}"`);
  return out;
}

function conventionProblems(doc: ManifestDoc): string[] {
  const r = refOf(doc);
  if (doc.family === '')
    return [`${doc.file}: must be in a family folder (knative/<family>/), not in knative/ itself`];
  const out: string[] = [];
  if (r.apiVersion === '' || r.kind === '') out.push(`${label(doc)}: apiVersion and kind are required`);
  if (r.name === '') out.push(`${label(doc)}: metadata.name is required`);
  const clusterScoped = (CLUSTER_SCOPED_KINDS as readonly string[]).includes(r.kind);
  if (!clusterScoped && r.namespace === undefined)
    out.push(`${label(doc)}: metadata.namespace is required (kubectl apply would use the current namespace)`);
  if (clusterScoped && r.namespace !== undefined) out.push(`${label(doc)}: a ${r.kind} has no namespace`);
  return [...out, ...labelProblems(doc)];
}

function duplicateProblems(set: Pick<PackagingSet, 'manifests'>): string[] {
  const seen = new Map<string, ManifestDoc>();
  const out: string[] = [];
  for (const doc of set.manifests) {
    const r = refOf(doc);
    const group = r.apiVersion.includes('/') ? r.apiVersion.split('/')[0] : '';
    const key = `${doc.family}|${group}|${r.kind}|${r.namespace ?? ''}|${r.name}`;
    const first = seen.get(key);
    if (first) out.push(`${label(doc)}: also defined in ${first.file}`);
    else seen.set(key, doc);
  }
  return out;
}

interface Wanted {
  kind: string;
  name: string;
  namespace: string | undefined;
  apiVersion?: string;
}

function find(set: Pick<PackagingSet, 'manifests'>, from: ManifestDoc, w: Wanted): ManifestDoc | undefined {
  return set.manifests.find((d) => {
    if (d.family !== from.family && d.family !== RUNTIME_FAMILY) return false;
    const r = refOf(d);
    if (r.kind !== w.kind || r.name !== w.name || r.namespace !== w.namespace) return false;
    return w.apiVersion === undefined || r.apiVersion === w.apiVersion;
  });
}

function missing(from: ManifestDoc, path: string, w: Wanted): string {
  const what = `${w.kind} ${w.namespace ? `${w.namespace}/` : ''}${w.name}${w.apiVersion ? ` (${w.apiVersion})` : ''}`;
  const where =
    from.family === RUNTIME_FAMILY ? 'knative/runtime/' : `knative/${from.family}/ or knative/runtime/`;
  return `${label(from)}: ${path} names ${what}, which is not in ${where}`;
}

/** A Knative destination/KReference `{apiVersion, kind, name, namespace}` at `path`. */
function refProblem(set: PackagingSet, from: ManifestDoc, path: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const ref = record(value);
  const kind = text(ref['kind']);
  const name = text(ref['name']);
  if (!kind || !name) return `${label(from)}: ${path} needs kind and name`;
  const apiVersion = text(ref['apiVersion']);
  const w: Wanted = { kind, name, namespace: text(ref['namespace']) ?? refOf(from).namespace };
  if (apiVersion !== undefined) w.apiVersion = apiVersion;
  return find(set, from, w) ? undefined : missing(from, path, w);
}

function named(
  set: PackagingSet,
  from: ManifestDoc,
  path: string,
  kind: string,
  name: unknown,
): string | undefined {
  if (typeof name !== 'string') return undefined;
  const w: Wanted = { kind, name, namespace: refOf(from).namespace };
  return find(set, from, w) ? undefined : missing(from, path, w);
}

function spec(doc: ManifestDoc): Record<string, unknown> {
  return record(doc.object['spec']);
}

function deadLetterRef(doc: ManifestDoc): unknown {
  return record(record(spec(doc)['delivery'])['deadLetterSink'])['ref'];
}

type RefCheck = (set: PackagingSet, doc: ManifestDoc) => (string | undefined)[];

function bindingProblems(set: PackagingSet, doc: ManifestDoc): (string | undefined)[] {
  const out = array(doc.object['subjects'])
    .map(record)
    .filter((s) => s['kind'] === 'ServiceAccount')
    .map((s, i) => {
      const w = {
        kind: 'ServiceAccount',
        name: text(s['name']) ?? '',
        namespace: text(s['namespace']) ?? refOf(doc).namespace,
      };
      return find(set, doc, w) ? undefined : missing(doc, `subjects[${i}]`, w);
    });
  const role = record(doc.object['roleRef']);
  const roleName = text(role['name']) ?? '';
  if (role['kind'] === 'Role') out.push(named(set, doc, 'roleRef', 'Role', roleName));
  else if (role['kind'] === 'ClusterRole' && !WELL_KNOWN_CLUSTER_ROLES.test(roleName)) {
    const w = { kind: 'ClusterRole', name: roleName, namespace: undefined };
    out.push(find(set, doc, w) ? undefined : missing(doc, 'roleRef', w));
  }
  return out;
}

const REF_CHECKS: Readonly<Record<string, RefCheck>> = {
  Trigger: (set, doc) => [
    named(set, doc, 'spec.broker', 'Broker', spec(doc)['broker']),
    refProblem(set, doc, 'spec.subscriber.ref', record(spec(doc)['subscriber'])['ref']),
    refProblem(set, doc, 'spec.delivery.deadLetterSink.ref', deadLetterRef(doc)),
  ],
  Broker: (set, doc) => [refProblem(set, doc, 'spec.delivery.deadLetterSink.ref', deadLetterRef(doc))],
  PingSource: (set, doc) => [refProblem(set, doc, 'spec.sink.ref', record(spec(doc)['sink'])['ref'])],
  ApiServerSource: (set, doc) => [
    refProblem(set, doc, 'spec.sink.ref', record(spec(doc)['sink'])['ref']),
    named(set, doc, 'spec.serviceAccountName', 'ServiceAccount', spec(doc)['serviceAccountName']),
  ],
  Service: (set, doc) => [
    named(
      set,
      doc,
      'spec.template.spec.serviceAccountName',
      'ServiceAccount',
      record(record(spec(doc)['template'])['spec'])['serviceAccountName'],
    ),
  ],
  RoleBinding: bindingProblems,
  ClusterRoleBinding: bindingProblems,
};

/** Every convention and reference problem of the documents under `knative/`. */
export function manifestProblems(set: PackagingSet): string[] {
  const out = [...set.manifests.flatMap(conventionProblems), ...duplicateProblems(set)];
  for (const doc of set.manifests) {
    const check = REF_CHECKS[refOf(doc).kind];
    if (check) out.push(...check(set, doc).filter((p): p is string => p !== undefined));
  }
  return out;
}
