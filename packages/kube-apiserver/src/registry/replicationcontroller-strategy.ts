/**
 * The strategy of core/v1 ReplicationController (k8s.io/kubernetes
 * pkg/registry/core/replicationcontroller/strategy.go), with its validation
 * (pkg/apis/core/validation/validation.go: ValidateReplicationController,
 * ValidateReplicationControllerSpec, ValidatePodTemplateSpecForRC, ValidateNonEmptySelector,
 * ValidateReplicationControllerStatusUpdate) and defaults (pkg/apis/core/v1/defaults.go
 * SetDefaults_ReplicationController, plus the pod template's ./pod-defaults.ts), applied on every
 * write as kube-apiserver defaults every decoded object.
 *
 * The selector is a plain label map: empty, it is defaulted from the template labels (as are the
 * object's labels when it has none); it may change on update (only apps/v1 kinds lock theirs). The
 * generation rises with every spec change (../api/objects.ts); the field label `status.replicas`
 * and the legacy field label wording are ./core-strategy.ts's.
 *
 * A new ReplicationController's status is the zero status (`replicas: 0`, which core/v1 always
 * serializes); a status write takes the sent status over it.
 *
 * Where the product differs: no ReplicationController controller runs — no Pods, the status stays as
 * written (nobody writes it); pod template rules are those of ./pod-validation.ts.
 */
import type { FieldError } from '../api/errors.js';
import { carryServerMeta } from '../api/objects.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { check, validateWorkloadTemplate } from './apps-strategy.js';
import { forbiddenField, invalidField, nonNegative, record, required } from './field-rules.js';
import { keepStatus } from './generic-strategy.js';
import { defaultPodTemplate } from './pod-defaults.js';
import type { KindStrategy } from './rest-strategy.js';

type Obj = Record<string, unknown>;
type Labels = Record<string, string>;

const specOf = (obj: KubeObject): Obj => record(obj.spec) ?? {};
const nonEmpty = (map: unknown): map is Labels => Object.keys(record(map) ?? {}).length > 0;

function templateLabels(spec: Obj): Labels | undefined {
  return record(record(record(spec.template)?.metadata)?.labels) as Labels | undefined;
}

/**
 * SetDefaults_ReplicationController: selector and object labels from the template labels when
 * empty, replicas 1; the template (when there is one) with its pod spec defaults.
 */
export function defaultReplicationController(obj: KubeObject): KubeObject {
  const spec: Obj = { ...specOf(obj) };
  const labels = templateLabels(spec);
  let metadata = obj.metadata;
  if (nonEmpty(labels)) {
    if (!nonEmpty(spec.selector)) spec.selector = labels;
    if (!nonEmpty(metadata.labels)) metadata = { ...metadata, labels };
  }
  spec.replicas ??= 1;
  if (record(spec.template)) spec.template = defaultPodTemplate(spec.template);
  return { ...obj, metadata, spec };
}

/** ValidateReplicationControllerSpec with ValidatePodTemplateSpecForRC (after defaulting). */
export function validateReplicationControllerSpec(spec: Obj): FieldError[] {
  const errors = [...nonNegative('spec.minReadySeconds', spec.minReadySeconds)];
  const selector = record(spec.selector) as Labels | undefined;
  if (!nonEmpty(selector)) errors.push(required('spec.selector'));
  errors.push(...nonNegative('spec.replicas', spec.replicas));
  if (!record(spec.template)) return [...errors, required('spec.template')];
  const labels = templateLabels(spec);
  if (nonEmpty(selector) && !Object.entries(selector).every(([k, v]) => labels?.[k] === v))
    errors.push(
      invalidField('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'),
    );
  errors.push(
    ...validateWorkloadTemplate(
      spec,
      forbiddenField(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in ReplicationController is not Supported',
      ),
    ),
  );
  return errors;
}

const count = (status: Obj, field: string): number => {
  const value = status[field];
  return typeof value === 'number' ? value : 0;
};

/** ValidateReplicationControllerStatus: counts not negative, none above status.replicas, available ≤ ready. */
export function replicationControllerStatusErrors(status: Obj): FieldError[] {
  const fields = [
    'replicas',
    'fullyLabeledReplicas',
    'readyReplicas',
    'availableReplicas',
    'observedGeneration',
  ];
  const errors = fields.flatMap((f) => nonNegative(`status.${f}`, status[f]));
  const replicas = count(status, 'replicas');
  for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'])
    if (count(status, f) > replicas)
      errors.push(invalidField(`status.${f}`, count(status, f), 'cannot be greater than status.replicas'));
  if (count(status, 'availableReplicas') > count(status, 'readyReplicas'))
    errors.push(
      invalidField(
        'status.availableReplicas',
        count(status, 'availableReplicas'),
        'cannot be greater than readyReplicas',
      ),
    );
  return errors;
}

/** ReplicationControllerStatus{} as core/v1 serializes it: replicas has no omitempty. */
const ZERO_STATUS = { replicas: 0 };

/** rcStatusStrategy.PrepareForUpdate: the stored spec, the rest as sent (replicas 0 when absent). */
function prepareForStatusUpdate(_def: ResourceDef, prev: KubeObject, incoming: KubeObject): KubeObject {
  const metadata = carryServerMeta(incoming.metadata, prev.metadata);
  return { ...prev, metadata, status: { ...ZERO_STATUS, ...record(incoming.status) } };
}

/** core/v1 ReplicationController writes (its field labels: ./core-strategy.ts; the table merges both). */
export const REPLICATION_CONTROLLER_RULES: KindStrategy = {
  prepareForCreate: (_def, obj) => ({ ...defaultReplicationController(obj), status: { ...ZERO_STATUS } }),
  validateCreate: (def, obj) => check(def, obj, validateReplicationControllerSpec(specOf(obj))),
  prepareForUpdate: (def, prev, next) => defaultReplicationController(keepStatus(def, prev, next)),
  validateUpdate: (def, _prev, next) => check(def, next, validateReplicationControllerSpec(specOf(next))),
  prepareForStatusUpdate,
  validateStatusUpdate: (def, _prev, next) =>
    check(def, next, replicationControllerStatusErrors(record(next.status) ?? {})),
};
