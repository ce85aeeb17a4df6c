/**
 * Responsibility check of a deployer (specs/landscaper.md "Responsibility check"): the type must
 * match, and the Target must match the deployer's target selectors. Metadata first: the
 * `deployer-type` / `deployer-target-name` annotations answer without reading the (possibly
 * large) item; only when one is missing is the full item read. Pure.
 *
 * Target selectors: none → responsible; otherwise any selector matches (OR); inside one selector
 * every given part must hold (AND): `targets` (name equal, namespace equal only when given),
 * `annotations` and `labels` as Kubernetes label requirements (k8s.io/apimachinery/pkg/labels).
 */
import type {
  DeployItem,
  ObjectRef,
  Requirement,
  SelectionOperator,
  Target,
  TargetSelector,
} from '../api/landscaper.js';
import { isSelectionOperator, LandscaperAnnotations, NO_TARGET_NAME } from '../api/landscaper.js';
import type { ObjectMeta } from '@landscape/apimachinery';

/** What the responsibility check needs to know of an item. */
export interface ResponsibilityKeys {
  /** `spec.type`. */
  type: string;
  /** `spec.target.name`; undefined when the item names no target. */
  targetName?: string;
}

/**
 * The keys from the metadata alone, or undefined when an annotation is missing (then read the full
 * item and use `responsibilityKeysFromSpec`). A target-name annotation of NO_TARGET_NAME means "no
 * target" (upstream `checkTargetResponsibility`); so does an empty one, which this product wrote
 * before (upstream would look for a Target named "" and find none; the job hand-out rewrites it).
 */
export function responsibilityKeysFromMetadata(meta: ObjectMeta | undefined): ResponsibilityKeys | undefined {
  const annotations = meta?.annotations ?? {};
  const type = annotations[LandscaperAnnotations.deployerType];
  const targetName = annotations[LandscaperAnnotations.deployerTargetName];
  if (type === undefined || targetName === undefined) return undefined;
  return targetName === '' || targetName === NO_TARGET_NAME ? { type } : { type, targetName };
}

/** True when the metadata-only read does not suffice (an annotation is missing): read the full item. */
export function needsFullRead(meta: ObjectMeta | undefined): boolean {
  return responsibilityKeysFromMetadata(meta) === undefined;
}

/** The keys from the full item's spec. */
export function responsibilityKeysFromSpec(item: DeployItem): ResponsibilityKeys {
  const name = item.spec.target?.name;
  return name ? { type: item.spec.type, targetName: name } : { type: item.spec.type };
}

// ---------------------------------------------------------------------------------------------
// Label requirements (apimachinery semantics)

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(value, 10, 64): optional sign and decimal digits inside the int64 range. */
function parseInt64(value: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(value)) return undefined;
  const n = BigInt(value);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** How many values each operator takes (labels.NewRequirement). */
const ARITY: Readonly<Record<SelectionOperator, 'one' | 'some' | 'none'>> = {
  '=': 'one',
  '==': 'one',
  '!=': 'one',
  in: 'some',
  notin: 'some',
  exists: 'none',
  '!': 'none',
  gt: 'one',
  lt: 'one',
};

const ARITY_PROBLEM = {
  one: 'exactly one value is required',
  some: 'at least one value is required',
  none: 'values must be empty',
} as const;

function arityHolds(arity: 'one' | 'some' | 'none', count: number): boolean {
  if (arity === 'one') return count === 1;
  return arity === 'some' ? count > 0 : count === 0;
}

/** What labels.NewRequirement would refuse in this requirement; [] when it is valid. */
export function requirementProblems(req: Requirement): string[] {
  const problems: string[] = [];
  if (!req.key) problems.push('key must not be empty');
  if (!isSelectionOperator(req.operator))
    return [...problems, `unknown operator ${JSON.stringify(req.operator)}`];
  const values = req.values ?? [];
  const arity = ARITY[req.operator];
  if (!arityHolds(arity, values.length)) problems.push(`operator ${req.operator}: ${ARITY_PROBLEM[arity]}`);
  const numeric = req.operator === 'gt' || req.operator === 'lt';
  if (numeric && values.length === 1 && parseInt64(values[0]) === undefined) {
    problems.push(`operator ${req.operator}: value ${JSON.stringify(values[0])} is not an integer`);
  }
  return problems;
}

function compareInt(req: Requirement, value: string | undefined): boolean {
  const limit = parseInt64(req.values?.[0] ?? '');
  const actual = value === undefined ? undefined : parseInt64(value);
  if (limit === undefined || actual === undefined) return false;
  return req.operator === 'gt' ? actual > limit : actual < limit;
}

type Matcher = (has: boolean, value: string | undefined, req: Requirement) => boolean;
const valueIn: Matcher = (has, value, req) => has && (req.values ?? []).includes(value as string);
const valueNotIn: Matcher = (has, value, req) => !has || !(req.values ?? []).includes(value as string);

const MATCHERS: Readonly<Record<SelectionOperator, Matcher>> = {
  '=': valueIn,
  '==': valueIn,
  in: valueIn,
  '!=': valueNotIn,
  notin: valueNotIn,
  exists: (has) => has,
  '!': (has) => !has,
  gt: (_has, value, req) => compareInt(req, value),
  lt: (_has, value, req) => compareInt(req, value),
};

/**
 * labels.Requirement.Matches: `=`, `==`, `in` need the key with one of the values; `!=`, `notin`
 * also match when the key is absent; `exists` / `!` test the key; `gt` / `lt` compare integers (a
 * missing key or a non-integer value does not match). An invalid requirement matches nothing.
 */
export function requirementMatches(
  req: Requirement,
  set: Readonly<Record<string, string>> | undefined,
): boolean {
  if (requirementProblems(req).length > 0) return false;
  const map = set ?? {};
  const has = Object.prototype.hasOwnProperty.call(map, req.key);
  return MATCHERS[req.operator](has, has ? map[req.key] : undefined, req);
}

function refMatches(ref: ObjectRef, target: Target): boolean {
  if (ref.name !== target.metadata?.name) return false;
  return !ref.namespace || ref.namespace === target.metadata?.namespace;
}

/** One selector: every part it gives must hold. */
export function selectorMatches(selector: TargetSelector, target: Target): boolean {
  const { targets, annotations, labels } = selector;
  if (targets && targets.length > 0 && !targets.some((ref) => refMatches(ref, target))) return false;
  if (annotations && !annotations.every((req) => requirementMatches(req, target.metadata?.annotations))) {
    return false;
  }
  return !labels || labels.every((req) => requirementMatches(req, target.metadata?.labels));
}

/** Any selector matches (none given: everything matches). */
export function targetMatchesSelectors(
  target: Target,
  selectors: readonly TargetSelector[] | undefined,
): boolean {
  if (!selectors || selectors.length === 0) return true;
  return selectors.some((selector) => selectorMatches(selector, target));
}

/** Every problem of a deployer's target selectors (check them when loading the config). */
export function targetSelectorProblems(selectors: readonly TargetSelector[] | undefined): string[] {
  const problems: string[] = [];
  (selectors ?? []).forEach((selector, i) => {
    (selector.targets ?? []).forEach((ref, j) => {
      if (!ref.name) problems.push(`targetSelectors[${i}].targets[${j}]: name must not be empty`);
    });
    for (const part of ['annotations', 'labels'] as const) {
      (selector[part] ?? []).forEach((req, j) => {
        for (const p of requirementProblems(req)) problems.push(`targetSelectors[${i}].${part}[${j}]: ${p}`);
      });
    }
  });
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The decision

export interface ResponsibilityInput {
  /** From `responsibilityKeysFromMetadata` or `responsibilityKeysFromSpec`. */
  keys: ResponsibilityKeys;
  /** The deployer's `spec.type`. */
  deployerType: string;
  /**
   * The Target named by `keys.targetName`, as read in the item's namespace: the object, or
   * `'NotFound'`; undefined when not read yet (the decision then asks for it).
   */
  target?: Target | 'NotFound';
  selectors?: readonly TargetSelector[];
}

export const NOT_RESPONSIBLE_REASONS = ['TypeMismatch', 'SelectorMismatch'] as const;
export type NotResponsibleReason = (typeof NOT_RESPONSIBLE_REASONS)[number];

export type Responsibility =
  /** Not this deployer's item: write nothing, ever. */
  | { kind: 'NotResponsible'; reason: NotResponsibleReason }
  /** Read the Target `name` in the item's namespace, then decide again with it. */
  | { kind: 'FetchTarget'; name: string }
  /** This deployer's item; `targetMissing`: the named Target does not exist (the item fails). */
  | { kind: 'Responsible'; targetMissing: boolean };

/**
 * Decide responsibility: type mismatch → not responsible; no target → responsible; Target not read
 * yet → fetch it; Target missing → responsible with targetMissing (the item then fails with
 * NoTargetFound; selectors cannot be evaluated without the object); otherwise the selectors decide.
 */
export function decideResponsibility(input: ResponsibilityInput): Responsibility {
  const { keys, deployerType, target, selectors } = input;
  if (keys.type !== deployerType) return { kind: 'NotResponsible', reason: 'TypeMismatch' };
  if (!keys.targetName) return { kind: 'Responsible', targetMissing: false };
  if (target === undefined) return { kind: 'FetchTarget', name: keys.targetName };
  if (target === 'NotFound') return { kind: 'Responsible', targetMissing: true };
  return targetMatchesSelectors(target, selectors)
    ? { kind: 'Responsible', targetMissing: false }
    : { kind: 'NotResponsible', reason: 'SelectorMismatch' };
}
