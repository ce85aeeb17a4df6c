/**
 * The strategies of the apps kinds the embedded API server serves (k8s.io/kubernetes
 * pkg/registry/apps/deployment/strategy.go, replicaset/strategy.go, statefulset/strategy.go), with
 * their validation (pkg/apis/apps/validation/validation.go: ValidateDeploymentSpec,
 * ValidateReplicaSetSpec, ValidatePodTemplateSpecForReplicaSet, ValidateStatefulSetSpec,
 * ValidateStatefulSetUpdate; selector immutability as the strategies' ValidateUpdate checks it for
 * apps/v1) and defaults (pkg/apis/apps/v1/defaults.go: SetDefaults_Deployment,
 * SetDefaults_ReplicaSet, SetDefaults_StatefulSet, plus the pod template's ./pod-defaults.ts).
 * Defaults apply on every write, as kube-apiserver defaults every decoded object.
 */
import { labelSelectorAsSelector, matchesLabelSelector, type LabelSelector } from '@landscape/apimachinery';
import { invalid, type FieldError } from '../api/errors.js';
import { carryServerMeta, deepEqual } from '../api/objects.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { keepStatus, withoutStatus } from './generic-strategy.js';
import {
  forbiddenField,
  immutable,
  invalidField,
  nonNegative,
  notSupported,
  record,
  required,
} from './field-rules.js';
import { defaultPodTemplate } from './pod-defaults.js';
import { validatePodSpec } from './pod-validation.js';
import type { KindStrategy } from './rest-strategy.js';

type Obj = Record<string, unknown>;

const specOf = (obj: KubeObject): Obj => record(obj.spec) ?? {};

function withSpec(obj: KubeObject, spec: Obj): KubeObject {
  return { ...obj, spec };
}

function defaultRollingUpdate(strategy: Obj): Obj {
  const type = strategy.type ?? 'RollingUpdate';
  if (type !== 'RollingUpdate') return { ...strategy, type };
  const ru = record(strategy.rollingUpdate) ?? {};
  return { ...strategy, type, rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%', ...ru } };
}

/** SetDefaults_Deployment (apps/v1). */
export function defaultDeployment(obj: KubeObject): KubeObject {
  const spec = specOf(obj);
  return withSpec(obj, {
    replicas: 1,
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
    ...spec,
    strategy: defaultRollingUpdate(record(spec.strategy) ?? {}),
    template: defaultPodTemplate(spec.template ?? {}),
  });
}

/** SetDefaults_ReplicaSet (apps/v1). */
export function defaultReplicaSet(obj: KubeObject): KubeObject {
  const spec = specOf(obj);
  return withSpec(obj, { replicas: 1, ...spec, template: defaultPodTemplate(spec.template ?? {}) });
}

/** SetDefaults_StatefulSet (apps/v1). */
export function defaultStatefulSet(obj: KubeObject): KubeObject {
  const spec = specOf(obj);
  const strategy = record(spec.updateStrategy) ?? {};
  const type = strategy.type ?? 'RollingUpdate';
  const updateStrategy =
    type === 'RollingUpdate'
      ? { ...strategy, type, rollingUpdate: { partition: 0, ...record(strategy.rollingUpdate) } }
      : { ...strategy, type };
  return withSpec(obj, {
    replicas: 1,
    revisionHistoryLimit: 10,
    podManagementPolicy: 'OrderedReady',
    ...spec,
    updateStrategy,
    persistentVolumeClaimRetentionPolicy: {
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
      ...record(spec.persistentVolumeClaimRetentionPolicy),
    },
    template: defaultPodTemplate(spec.template ?? {}),
  });
}

/** The selector and its match against the template labels (ValidatePodTemplateSpecForReplicaSet). */
function validateSelectorAndTemplate(spec: Obj, kindWord: string): FieldError[] {
  const selector = record(spec.selector) as LabelSelector | undefined;
  if (!selector) return [required('spec.selector')];
  const converted = labelSelectorAsSelector(selector);
  if (!converted.ok) return [invalidField('spec.selector', selector, converted.message)];
  if (converted.requirements.length === 0)
    return [invalidField('spec.selector', selector, `empty selector is invalid for ${kindWord}`)];
  const template = record(spec.template) ?? {};
  const labels = record(record(template.metadata)?.labels) as Record<string, string> | undefined;
  return matchesLabelSelector(selector, labels)
    ? []
    : [
        invalidField(
          'spec.template.metadata.labels',
          labels ?? {},
          '`selector` does not match template `labels`',
        ),
      ];
}

/**
 * The pod template of a workload (Deployment, ReplicaSet, StatefulSet, DaemonSet,
 * ReplicationController): restartPolicy Always, no deadline, a valid spec.
 */
export function validateWorkloadTemplate(spec: Obj, activeDeadline: FieldError): FieldError[] {
  const podSpec = record(record(spec.template)?.spec) ?? {};
  const errors = validatePodSpec(podSpec, 'spec.template.spec');
  if (podSpec.restartPolicy !== undefined && podSpec.restartPolicy !== 'Always')
    errors.push(notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy, ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined) errors.push(activeDeadline);
  return errors;
}

function replicaSetLikeSpec(spec: Obj, kindWord: string): FieldError[] {
  return [
    ...nonNegative('spec.replicas', spec.replicas),
    ...nonNegative('spec.minReadySeconds', spec.minReadySeconds),
    ...validateSelectorAndTemplate(spec, kindWord),
    ...validateWorkloadTemplate(
      spec,
      forbiddenField(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in ReplicaSet is not Supported',
      ),
    ),
  ];
}

const PERCENT = /^[0-9]+%$/;

/** An int-or-percent of a rolling update (ValidatePositiveIntOrPercent): its errors, and whether it is 0. */
export function intOrPercent(field: string, value: unknown): { errors: FieldError[]; zero: boolean } {
  if (value === undefined) return { errors: [], zero: false };
  if (typeof value === 'number') return { errors: nonNegative(field, value), zero: value === 0 };
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (!PERCENT.test(text)) {
    const detail =
      "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
    return { errors: [invalidField(field, value, detail)], zero: false };
  }
  return { errors: [], zero: Number.parseInt(text, 10) === 0 };
}

/** validateDeploymentStrategy and ValidateRollingUpdateDeployment. */
function validateDeploymentStrategy(strategy: Obj): FieldError[] {
  if (strategy.type === 'Recreate')
    return strategy.rollingUpdate === undefined
      ? []
      : [
          forbiddenField(
            'spec.strategy.rollingUpdate',
            "may not be specified when strategy `type` is 'Recreate'",
          ),
        ];
  if (strategy.type !== 'RollingUpdate')
    return [notSupported('spec.strategy', strategy, ['Recreate', 'RollingUpdate'])];
  const ru = record(strategy.rollingUpdate) ?? {};
  const unavailable = intOrPercent('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable);
  const surge = intOrPercent('spec.strategy.rollingUpdate.maxSurge', ru.maxSurge);
  const errors = [...unavailable.errors, ...surge.errors];
  if (unavailable.zero && surge.zero)
    errors.push(
      invalidField(
        'spec.strategy.rollingUpdate.maxUnavailable',
        ru.maxUnavailable,
        'may not be 0 when `maxSurge` is 0',
      ),
    );
  if (
    typeof ru.maxUnavailable === 'string' &&
    PERCENT.test(ru.maxUnavailable) &&
    Number.parseInt(ru.maxUnavailable, 10) > 100
  )
    errors.push(
      invalidField(
        'spec.strategy.rollingUpdate.maxUnavailable',
        ru.maxUnavailable,
        'must not be greater than 100%',
      ),
    );
  return errors;
}

/** ValidateDeploymentSpec. */
export function validateDeploymentSpec(spec: Obj): FieldError[] {
  const errors = [
    ...replicaSetLikeSpec(spec, 'deployment'),
    ...validateDeploymentStrategy(record(spec.strategy) ?? {}),
    ...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit),
  ];
  const deadline = spec.progressDeadlineSeconds;
  if (typeof deadline === 'number') {
    errors.push(...nonNegative('spec.progressDeadlineSeconds', deadline));
    if (deadline <= ((spec.minReadySeconds as number | undefined) ?? 0))
      errors.push(
        invalidField('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'),
      );
  }
  return errors;
}

/** ValidateReplicaSetSpec. */
export function validateReplicaSetSpec(spec: Obj): FieldError[] {
  return replicaSetLikeSpec(spec, 'deployment');
}

/** ValidateStatefulSetSpec (policies, strategy, replicas, selector ↔ template, template). */
export function validateStatefulSetSpec(spec: Obj): FieldError[] {
  const errors: FieldError[] = [];
  const policies = ['OrderedReady', 'Parallel'];
  if (!policies.includes(spec.podManagementPolicy as string))
    errors.push(
      invalidField(
        'spec.podManagementPolicy',
        spec.podManagementPolicy,
        "must be 'OrderedReady' or 'Parallel'",
      ),
    );
  const strategy = record(spec.updateStrategy) ?? {};
  if (strategy.type === 'OnDelete' && strategy.rollingUpdate !== undefined)
    errors.push(
      invalidField(
        'spec.updateStrategy.rollingUpdate',
        strategy.rollingUpdate,
        "only allowed for updateStrategy 'RollingUpdate'",
      ),
    );
  else if (strategy.type !== 'OnDelete' && strategy.type !== 'RollingUpdate')
    errors.push(invalidField('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  errors.push(
    ...nonNegative('spec.updateStrategy.rollingUpdate.partition', record(strategy.rollingUpdate)?.partition),
  );
  errors.push(
    ...nonNegative('spec.replicas', spec.replicas),
    ...nonNegative('spec.minReadySeconds', spec.minReadySeconds),
  );
  errors.push(...validateSelectorAndTemplate(spec, 'statefulset').map(statefulSetWording));
  errors.push(
    ...validateWorkloadTemplate(
      spec,
      invalidField(
        'spec.template.spec.activeDeadlineSeconds',
        record(record(spec.template)?.spec)?.activeDeadlineSeconds,
        'must not be specified',
      ),
    ),
  );
  return errors;
}

/** StatefulSet words its empty selector `empty selector is not valid for statefulset.`. */
function statefulSetWording(e: FieldError): FieldError {
  return e.detail === 'empty selector is invalid for statefulset'
    ? { ...e, detail: 'empty selector is not valid for statefulset.' }
    : e;
}

/** The fields of a StatefulSet spec an update may change (ValidateStatefulSetUpdate). */
const STATEFULSET_MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];

/** ValidateStatefulSetUpdate: everything but the mutable fields is locked. */
export function statefulSetUpdateErrors(next: Obj, prev: Obj): FieldError[] {
  const locked = (s: Obj): Obj =>
    Object.fromEntries(Object.entries(s).filter(([k]) => !STATEFULSET_MUTABLE.includes(k)));
  if (deepEqual(locked(next), locked(prev))) return [];
  return [
    forbiddenField(
      'spec',
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}

/** Throws kube-apiserver's 422 Invalid for the kind when there are errors. */
export function check(def: ResourceDef, obj: KubeObject, errors: FieldError[]): void {
  if (errors.length) throw invalid(def.kind, def.group, obj.metadata.name ?? '', errors);
}

/**
 * A status write keeps the stored spec and labels and takes the rest of the metadata and the
 * status (deploymentStatusStrategy/replicaSetStatusStrategy/statefulSetStatusStrategy
 * PrepareForUpdate): how the Deployment controller sets the revision annotation (UpdateStatus in
 * pkg/controller/deployment/sync.go), without a new generation.
 */
function statusUpdate(_def: ResourceDef, prev: KubeObject, incoming: KubeObject): KubeObject {
  const metadata = { ...carryServerMeta(incoming.metadata, prev.metadata), labels: prev.metadata.labels };
  if (metadata.labels === undefined) delete metadata.labels;
  return { ...prev, metadata, status: incoming.status };
}

/** A workload kind's strategy from its defaults, spec validation and update rules. */
function workloadStrategy(
  defaults: (obj: KubeObject) => KubeObject,
  validateSpec: (spec: Obj) => FieldError[],
  updateErrors: (next: Obj, prev: Obj) => FieldError[],
): KindStrategy {
  return {
    prepareForCreate: (def, obj) => defaults(withoutStatus(def, obj)),
    validateCreate: (def, obj) => check(def, obj, validateSpec(specOf(obj))),
    prepareForUpdate: (def, prev, next) => defaults(keepStatus(def, prev, next)),
    prepareForStatusUpdate: statusUpdate,
    validateUpdate: (def, prev, next) =>
      check(def, next, [
        ...validateSpec(specOf(next)),
        ...updateErrors(specOf(next), specOf(defaults(prev))),
      ]),
  };
}

const selectorImmutable = (next: Obj, prev: Obj): FieldError[] =>
  immutable('spec.selector', next.selector, prev.selector);

export const DEPLOYMENT_STRATEGY = workloadStrategy(
  defaultDeployment,
  validateDeploymentSpec,
  selectorImmutable,
);
export const REPLICASET_STRATEGY = workloadStrategy(
  defaultReplicaSet,
  validateReplicaSetSpec,
  selectorImmutable,
);
export const STATEFULSET_STRATEGY = workloadStrategy(
  defaultStatefulSet,
  validateStatefulSetSpec,
  statefulSetUpdateErrors,
);
