/**
 * The strategies of the core kinds whose writes do more than their schema defaults
 * (k8s.io/kubernetes pkg/registry/core/namespace/strategy.go and storage/storage.go,
 * pkg/registry/core/secret/strategy.go): a Namespace gets its `kubernetes` finalizer and phase
 * Active on create, phase Terminating when marked deleted, is held by its spec.finalizers and has
 * the `finalize` subresource; its `kubernetes.io/metadata.name` label is its name on create and on
 * every update (namespaceStrategy.Canonicalize, pkg/apis/core/v1 defaults.go SetDefaults_Namespace);
 * a Secret's stringData is folded into data and its type defaults to
 * Opaque on create and update (its validation and immutability: ./configmap-strategy.ts). The core kinds' field labels (pkg/registry/core/<kind>/strategy.go
 * GetAttrs / ToSelectableFields) and the kinds whose field label conversion funcs word an unknown
 * label "field label not supported" are here too.
 */
import { readPath, writePath } from '../api/objects.js';
import type { KubeObject } from '../api/types.js';
import { check, secretErrors, secretUpdateErrors } from './configmap-strategy.js';
import { keepStatus } from './generic-strategy.js';
import type { KindStrategy } from './rest-strategy.js';

export const NAMESPACE_FINALIZER = 'kubernetes';
/** The label every namespace carries, its value the namespace's name (v1.LabelMetadataName). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** Canonicalize: the name label set (overwritten) to the namespace's name. */
function withNameLabel(obj: KubeObject): KubeObject {
  const labels = { ...(obj.metadata.labels ?? {}), [NAMESPACE_NAME_LABEL]: obj.metadata.name! };
  return { ...obj, metadata: { ...obj.metadata, labels } };
}

function namespaceOnCreate(obj: KubeObject): KubeObject {
  const finalizers = ((obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).filter(
    (f) => f !== NAMESPACE_FINALIZER,
  );
  const spec = { finalizers: [...finalizers, NAMESPACE_FINALIZER] };
  return withNameLabel({ ...obj, spec, status: { phase: 'Active' } });
}

function secretOnWrite(obj: KubeObject): KubeObject {
  const { stringData, ...rest } = obj as KubeObject & {
    stringData?: Record<string, string>;
    data?: Record<string, string>;
  };
  const data = { ...(rest.data ?? {}) };
  for (const [key, value] of Object.entries(stringData ?? {}))
    data[key] = Buffer.from(value, 'utf8').toString('base64');
  const out: KubeObject = { ...rest, type: rest.type ?? 'Opaque' };
  if (Object.keys(data).length || rest.data) out.data = data;
  return out;
}

/** core/v1 Namespace. Its status is set on create (not cleared as for other kinds with status). */
export const NAMESPACE_STRATEGY: KindStrategy = {
  prepareForCreate: (_def, obj) => namespaceOnCreate(obj),
  prepareForUpdate: (def, prev, next) => withNameLabel(keepStatus(def, prev, next)),
  prepareForDelete: (_def, obj) => writePath(obj, '.status.phase', 'Terminating'),
  pendingFinalizers: (obj) => (readPath(obj, '.spec.finalizers') as string[] | undefined) ?? [],
  subresources: ['finalize'],
  fieldLabels: { 'status.phase': '.status.phase' },
  legacyFieldLabelErrors: true,
};

/** core/v1 Secret (no status subresource); its validation is ./configmap-strategy.ts. */
export const SECRET_STRATEGY: KindStrategy = {
  prepareForCreate: (_def, obj) => secretOnWrite(obj),
  validateCreate: (def, obj) => check(def, obj, secretErrors(obj)),
  prepareForUpdate: (_def, _prev, next) => secretOnWrite(next),
  validateUpdate: (def, prev, next) => check(def, next, secretUpdateErrors(next, prev)),
  fieldLabels: { type: '.type' },
  legacyFieldLabelErrors: true,
};

/** core/v1 Pod: its field labels (a Pod's writes have no rules beyond its schema here). */
export const POD_STRATEGY: KindStrategy = {
  fieldLabels: {
    'spec.nodeName': '.spec.nodeName',
    'spec.restartPolicy': '.spec.restartPolicy',
    'spec.schedulerName': '.spec.schedulerName',
    'spec.serviceAccountName': '.spec.serviceAccountName',
    'spec.hostNetwork': '.spec.hostNetwork',
    'status.phase': '.status.phase',
    'status.podIP': '.status.podIP',
    'status.nominatedNodeName': '.status.nominatedNodeName',
  },
  legacyFieldLabelErrors: true,
};

/** core/v1 Event: its field labels (`kubectl get events --field-selector involvedObject.name=web`). */
export const EVENT_STRATEGY: KindStrategy = {
  fieldLabels: {
    'involvedObject.kind': '.involvedObject.kind',
    'involvedObject.namespace': '.involvedObject.namespace',
    'involvedObject.name': '.involvedObject.name',
    'involvedObject.uid': '.involvedObject.uid',
    'involvedObject.apiVersion': '.involvedObject.apiVersion',
    'involvedObject.resourceVersion': '.involvedObject.resourceVersion',
    'involvedObject.fieldPath': '.involvedObject.fieldPath',
    reason: '.reason',
    reportingComponent: '.reportingComponent',
    source: '.source.component',
    type: '.type',
  },
  legacyFieldLabelErrors: true,
};

/** core/v1 Node: its field labels. */
export const NODE_STRATEGY: KindStrategy = {
  fieldLabels: { 'spec.unschedulable': '.spec.unschedulable' },
  legacyFieldLabelErrors: true,
};

/** core/v1 Service: only its field label conversion's wording. */
export const LEGACY_FIELD_LABEL_STRATEGY: KindStrategy = { legacyFieldLabelErrors: true };

/** core/v1 ReplicationController: its field label (ControllerToSelectableFields; its writes: ./replicationcontroller-strategy.ts). */
export const REPLICATION_CONTROLLER_FIELDS: KindStrategy = {
  fieldLabels: { 'status.replicas': '.status.replicas' },
  legacyFieldLabelErrors: true,
};
