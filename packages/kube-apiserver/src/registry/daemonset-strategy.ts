/**
 * The strategy of apps/v1 DaemonSet (k8s.io/kubernetes pkg/registry/apps/daemonset/strategy.go),
 * with its validation (pkg/apis/apps/validation/validation.go: ValidateDaemonSet,
 * ValidateDaemonSetSpec, ValidateDaemonSetUpdateStrategy, ValidateRollingUpdateDaemonSet,
 * ValidateDaemonSetStatusUpdate; selector immutability as the strategy's ValidateUpdate checks it
 * for apps/v1) and defaults (pkg/apis/apps/v1/defaults.go SetDefaults_DaemonSet, plus the pod
 * template's ./pod-defaults.ts), applied on every write as kube-apiserver defaults every decoded
 * object.
 *
 * The internal spec.templateGeneration is what apps/v1 shows as the
 * `deprecated.daemonset.template.generation` annotation (pkg/apis/apps/v1/conversion.go): at least
 * 1 on create, the stored value on update, raised by one when the pod template changes; a value
 * that is not an integer fails the conversion (400, worded as the handlers' transformDecodeError
 * wraps strconv's error — read from the source, not checked on a live server). The generation rises with every spec change
 * (../api/objects.ts).
 *
 * A new DaemonSet's status is the zero status (the four counts apps/v1 always serializes); a
 * status write takes the sent status over those zeros.
 *
 * Where the product differs: no DaemonSet controller runs — no Pods, no ControllerRevisions, the
 * status stays as written (nobody writes it). A missing selector or template is refused while
 * decoding ("Required value", the published schema's required fields) where kube-apiserver words
 * the missing selector as "`selector` does not match template `labels`"; pod template rules are
 * those of ./pod-validation.ts.
 */
import { labelSelectorAsSelector, matchesLabelSelector, type LabelSelector } from '@landscape/apimachinery';
import type { FieldError } from '../api/errors.js';
import { carryServerMeta, deepEqual } from '../api/objects.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { conversionError } from '../endpoints/goerrors.js';
import { check, intOrPercent, validateWorkloadTemplate } from './apps-strategy.js';
import {
  forbiddenField,
  immutable,
  invalidField,
  nonNegative,
  notSupported,
  record,
  required,
} from './field-rules.js';
import { keepStatus } from './generic-strategy.js';
import { defaultPodTemplate } from './pod-defaults.js';
import type { KindStrategy } from './rest-strategy.js';

type Obj = Record<string, unknown>;

/** appsv1.DeprecatedTemplateGeneration. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

const specOf = (obj: KubeObject): Obj => record(obj.spec) ?? {};

/** SetDefaults_DaemonSet (apps/v1): RollingUpdate with maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10. */
export function defaultDaemonSet(obj: KubeObject): KubeObject {
  const spec = specOf(obj);
  const strategy = record(spec.updateStrategy) ?? {};
  const type = strategy.type ?? 'RollingUpdate';
  const updateStrategy =
    type === 'RollingUpdate'
      ? {
          ...strategy,
          type,
          rollingUpdate: { maxUnavailable: 1, maxSurge: 0, ...record(strategy.rollingUpdate) },
        }
      : { ...strategy, type };
  return {
    ...obj,
    spec: {
      revisionHistoryLimit: 10,
      ...spec,
      updateStrategy,
      template: defaultPodTemplate(spec.template ?? {}),
    },
  };
}

/**
 * The template generation the annotation carries (Convert_v1_DaemonSet_To_apps_DaemonSet:
 * strconv.ParseInt), undefined when it is absent; a 400 when it is not an integer.
 */
function templateGenerationOf(def: ResourceDef, obj: KubeObject): number | undefined {
  const value = obj.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (value === undefined) return undefined;
  if (!/^[+-]?[0-9]+$/.test(value))
    throw conversionError(def, `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  return Number.parseInt(value, 10);
}

function withTemplateGeneration(obj: KubeObject, generation: number): KubeObject {
  const annotations = { ...obj.metadata.annotations, [TEMPLATE_GENERATION_ANNOTATION]: String(generation) };
  return { ...obj, metadata: { ...obj.metadata, annotations } };
}

/** DaemonSetStatus{} as apps/v1 serializes it: the four counts without omitempty. */
const ZERO_STATUS = {
  currentNumberScheduled: 0,
  numberMisscheduled: 0,
  desiredNumberScheduled: 0,
  numberReady: 0,
};

/** PrepareForCreate: the zero status, template generation at least 1. */
function prepareForCreate(def: ResourceDef, obj: KubeObject): KubeObject {
  const generation = templateGenerationOf(def, obj) ?? 0;
  const out = { ...defaultDaemonSet(obj), status: { ...ZERO_STATUS } };
  return withTemplateGeneration(out, Math.max(generation, 1));
}

/** PrepareForUpdate: the stored status and template generation, the latter raised by a template change. */
function prepareForUpdate(def: ResourceDef, prev: KubeObject, next: KubeObject): KubeObject {
  templateGenerationOf(def, next);
  const out = defaultDaemonSet(keepStatus(def, prev, next));
  const stored = templateGenerationOf(def, prev) ?? 0;
  const changed = !deepEqual(specOf(out).template, specOf(defaultDaemonSet(prev)).template);
  return withTemplateGeneration(out, changed ? stored + 1 : stored);
}

/** The status strategy's PrepareForUpdate: the stored spec (and template generation), the rest as sent (absent counts 0). */
function prepareForStatusUpdate(def: ResourceDef, prev: KubeObject, incoming: KubeObject): KubeObject {
  templateGenerationOf(def, incoming);
  const metadata = carryServerMeta(incoming.metadata, prev.metadata);
  const out = { ...prev, metadata, status: { ...ZERO_STATUS, ...record(incoming.status) } };
  return withTemplateGeneration(out, templateGenerationOf(def, prev) ?? 0);
}

const PERCENT = /^[0-9]+%$/;

/** getIntOrPercentValue: a percent's number, an int, or a string's Atoi (0 when it is not a number). */
function intOrPercentValue(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return 0;
  if (PERCENT.test(value)) return Number.parseInt(value, 10);
  return /^[+-]?[0-9]+$/.test(value) ? Number.parseInt(value, 10) : 0;
}

/** IsNotMoreThan100Percent. */
function notOver100(field: string, value: unknown): FieldError[] {
  return typeof value === 'string' && PERCENT.test(value) && Number.parseInt(value, 10) > 100
    ? [invalidField(field, value, 'must not be greater than 100%')]
    : [];
}

/** ValidateRollingUpdateDaemonSet: exactly one of maxUnavailable and maxSurge is non-zero. */
function rollingUpdateErrors(ru: Obj, path: string): FieldError[] {
  const unavailable = `${path}.maxUnavailable`;
  const surge = `${path}.maxSurge`;
  const errors = [
    ...intOrPercent(unavailable, ru.maxUnavailable).errors,
    ...intOrPercent(surge, ru.maxSurge).errors,
    ...notOver100(unavailable, ru.maxUnavailable),
    ...notOver100(surge, ru.maxSurge),
  ];
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
  if (hasUnavailable && hasSurge)
    errors.push(invalidField(surge, ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
  if (!hasUnavailable && !hasSurge) errors.push(required(unavailable, 'cannot be 0 when maxSurge is 0'));
  return errors;
}

/** ValidateDaemonSetUpdateStrategy. */
function updateStrategyErrors(strategy: Obj): FieldError[] {
  const path = 'spec.updateStrategy';
  if (strategy.type === 'OnDelete') return [];
  if (strategy.type !== 'RollingUpdate') return [notSupported(path, strategy, ['RollingUpdate', 'OnDelete'])];
  const ru = record(strategy.rollingUpdate);
  return ru ? rollingUpdateErrors(ru, `${path}.rollingUpdate`) : [required(`${path}.rollingUpdate`)];
}

/**
 * The selector and the template labels: a selector that does not convert is refused as it is; an
 * absent one matches nothing (labels.Nothing), an empty one everything but is invalid itself.
 */
function selectorErrors(spec: Obj): FieldError[] {
  const selector = record(spec.selector) as LabelSelector | undefined;
  const labels = record(record(record(spec.template)?.metadata)?.labels) as
    Record<string, string> | undefined;
  const mismatch = invalidField(
    'spec.template.metadata.labels',
    labels,
    '`selector` does not match template `labels`',
  );
  if (!selector) return [mismatch];
  const converted = labelSelectorAsSelector(selector);
  if (!converted.ok) return [invalidField('spec.selector', selector, converted.message)];
  const errors = matchesLabelSelector(selector, labels) ? [] : [mismatch];
  if (converted.requirements.length === 0)
    errors.push(invalidField('spec.selector', selector, 'empty selector is invalid for daemonset'));
  return errors;
}

/** ValidateDaemonSetSpec (after defaulting). */
export function validateDaemonSetSpec(spec: Obj): FieldError[] {
  return [
    ...selectorErrors(spec),
    ...validateWorkloadTemplate(
      spec,
      forbiddenField(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in DaemonSet is not Supported',
      ),
    ),
    ...nonNegative('spec.minReadySeconds', spec.minReadySeconds),
    ...updateStrategyErrors(record(spec.updateStrategy) ?? {}),
    ...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit),
  ];
}

const STATUS_COUNTS = [
  'currentNumberScheduled',
  'numberMisscheduled',
  'desiredNumberScheduled',
  'numberReady',
  'observedGeneration',
  'updatedNumberScheduled',
  'numberAvailable',
  'numberUnavailable',
  'collisionCount',
];

/** ValidateDaemonSetStatusUpdate: counts not negative, collisionCount never lowered. */
export function daemonSetStatusErrors(next: Obj, prev: Obj): FieldError[] {
  const errors = STATUS_COUNTS.flatMap((f) => nonNegative(`status.${f}`, next[f]));
  const before = prev.collisionCount;
  const after = next.collisionCount;
  if (typeof before === 'number' && (typeof after !== 'number' || after < before))
    errors.push(invalidField('status.collisionCount', after ?? 0, 'cannot be decremented'));
  return errors;
}

const statusOf = (obj: KubeObject): Obj => record(obj.status) ?? {};

/** apps/v1 DaemonSet writes. */
export const DAEMONSET_STRATEGY: KindStrategy = {
  prepareForCreate,
  validateCreate: (def, obj) => check(def, obj, validateDaemonSetSpec(specOf(obj))),
  prepareForUpdate,
  validateUpdate: (def, prev, next) =>
    check(def, next, [
      ...validateDaemonSetSpec(specOf(next)),
      ...immutable('spec.selector', specOf(next).selector, specOf(prev).selector),
    ]),
  prepareForStatusUpdate,
  validateStatusUpdate: (def, prev, next) =>
    check(def, next, daemonSetStatusErrors(statusOf(next), statusOf(prev))),
};
