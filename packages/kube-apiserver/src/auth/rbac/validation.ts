/**
 * What the RBAC registry strategies do on write beyond the schema (pkg/apis/rbac/v1 defaults and
 * pkg/apis/rbac/validation): roleRef.apiGroup and User/Group subjects' apiGroup default to
 * rbac.authorization.k8s.io; rules need verbs and either apiGroups+resources or (cluster-wide)
 * nonResourceURLs; roleRef.kind is Role or ClusterRole (ClusterRoleBindings: ClusterRole only);
 * subjects are ServiceAccount (apiGroup "", namespace required cluster-wide), User or Group; and
 * an update may not change roleRef:
 *
 *   RoleBinding.rbac.authorization.k8s.io "x" is invalid: roleRef: Invalid value:
 *   rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"b"}: cannot change roleRef
 *
 * RBAC object names (and roleRef names) are path segments (`system:discovery` is valid): not `.`
 * or `..`, without `/` or `%`.
 */
import { StatusError, renderFieldError, type FieldError } from '../../api/errors.js';
import type { KubeObject, ResourceDef } from '../../api/types.js';
import { pathSegmentProblems } from './request-info.js';
import { RBAC_GROUP, roleRefOf, type RoleRef } from './types.js';
import { goQuote, goStringSlice, goStruct } from '@landscape/apimachinery';

export const RBAC_KINDS = ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'] as const;

export function isRbacDef(def: Pick<ResourceDef, 'group' | 'kind'>): boolean {
  return def.group === RBAC_GROUP && (RBAC_KINDS as readonly string[]).includes(def.kind);
}

/**
 * ValidateRBACName: the problems of an RBAC object's metadata.name (and roleRef.name), each
 * reported as `metadata.name: Invalid value: "<name>": <problem>`. RBAC names are not DNS
 * subdomains: ObjectMeta validation must use this for the RBAC kinds.
 */
export function validateRbacName(name: string): string[] {
  return pathSegmentProblems(name);
}

/** A field error already rendered the Go way (`%#v` values). */
interface RbacFieldError {
  type: FieldError['type'];
  field: string;
  text: string;
}

function fromFieldError(e: FieldError): RbacFieldError {
  return { type: e.type, field: e.field, text: renderFieldError(e) };
}

function goInvalid(field: string, goValue: string, detail: string): RbacFieldError {
  return { type: 'FieldValueInvalid', field, text: `${field}: Invalid value: ${goValue}: ${detail}` };
}

function required(field: string, detail = ''): RbacFieldError {
  return fromFieldError({ type: 'FieldValueRequired', field, detail: detail || undefined });
}

function notSupported(field: string, value: string, supported: string[]): RbacFieldError {
  return fromFieldError({
    type: 'FieldValueNotSupported',
    field,
    value,
    detail: `supported values: ${supported.map(goQuote).join(', ')}`,
  });
}

/** 422 Invalid with the Go renderings, as apierrors.NewInvalid words it. */
function invalidError(def: ResourceDef, name: string, errors: RbacFieldError[]): StatusError {
  const list = errors.length === 1 ? errors[0].text : `[${errors.map((e) => e.text).join(', ')}]`;
  return new StatusError(422, 'Invalid', `${def.kind}.${def.group} ${goQuote(name)} is invalid: ${list}`, {
    name,
    group: def.group,
    kind: def.kind,
    causes: errors.map((e) => ({
      reason: e.type,
      message: e.text.slice(e.field.length + 2),
      field: e.field,
    })),
  });
}

type Json = Record<string, unknown>;

const asArray = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const strList = (v: unknown): string[] | undefined => (Array.isArray(v) ? (v as string[]) : undefined);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** SetDefaults_RoleBinding / _ClusterRoleBinding / _Subject. Returns a new object. */
export function defaultRbacObject(def: ResourceDef, obj: KubeObject): KubeObject {
  if (def.kind !== 'RoleBinding' && def.kind !== 'ClusterRoleBinding') return obj;
  const out: KubeObject = { ...obj };
  if (obj.roleRef && typeof obj.roleRef === 'object') {
    const ref = obj.roleRef as Json;
    out.roleRef = { ...ref, apiGroup: ref.apiGroup || RBAC_GROUP };
  }
  if (Array.isArray(obj.subjects)) {
    out.subjects = asArray(obj.subjects).map((s) =>
      !s.apiGroup && (s.kind === 'User' || s.kind === 'Group') ? { ...s, apiGroup: RBAC_GROUP } : s,
    );
  }
  return out;
}

function validatePolicyRule(rule: Json, namespaced: boolean, path: string): RbacFieldError[] {
  const errors: RbacFieldError[] = [];
  const has = (f: string): boolean => (strList(rule[f]) ?? []).length > 0;
  if (!has('verbs')) errors.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
  if (has('nonResourceURLs')) {
    const urls = goStringSlice(strList(rule.nonResourceURLs));
    if (namespaced)
      errors.push(
        goInvalid(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'),
      );
    if (has('apiGroups') || has('resources') || has('resourceNames'))
      errors.push(
        goInvalid(
          `${path}.nonResourceURLs`,
          urls,
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    return errors;
  }
  if (!has('apiGroups'))
    errors.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (!has('resources'))
    errors.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errors;
}

function validateRules(obj: KubeObject, namespaced: boolean): RbacFieldError[] {
  return asArray(obj.rules).flatMap((r, i) => validatePolicyRule(r ?? {}, namespaced, `rules[${i}]`));
}

function validateAggregation(obj: KubeObject): RbacFieldError[] {
  const rule = obj.aggregationRule as Json | undefined;
  if (!rule || typeof rule !== 'object') return [];
  if (asArray(rule.clusterRoleSelectors).length > 0) return [];
  return [
    required(
      'aggregationRule.clusterRoleSelectors',
      'at least one clusterRoleSelector required if aggregationRule is non-nil',
    ),
  ];
}

const SERVICE_ACCOUNT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function validateServiceAccountSubject(s: Json, namespaced: boolean, path: string): RbacFieldError[] {
  const errors: RbacFieldError[] = [];
  const name = text(s.name);
  if (name.length > 253)
    errors.push(
      fromFieldError({
        type: 'FieldValueInvalid',
        field: `${path}.name`,
        value: name,
        detail: 'must be no more than 253 characters',
      }),
    );
  if (name && !SERVICE_ACCOUNT_NAME.test(name))
    errors.push(
      fromFieldError({
        type: 'FieldValueInvalid',
        field: `${path}.name`,
        value: name,
        detail: SUBDOMAIN_MSG,
      }),
    );
  if (s.apiGroup) errors.push(notSupported(`${path}.apiGroup`, text(s.apiGroup), ['']));
  if (!namespaced && !s.namespace) errors.push(required(`${path}.namespace`));
  return errors;
}

function validateSubject(s: Json, namespaced: boolean, path: string): RbacFieldError[] {
  const errors: RbacFieldError[] = [];
  if (!s.name) errors.push(required(`${path}.name`));
  if (s.kind === 'ServiceAccount') return [...errors, ...validateServiceAccountSubject(s, namespaced, path)];
  if (s.kind === 'User' || s.kind === 'Group') {
    if (s.apiGroup !== RBAC_GROUP)
      errors.push(notSupported(`${path}.apiGroup`, text(s.apiGroup), [RBAC_GROUP]));
    return errors;
  }
  return [...errors, notSupported(`${path}.kind`, text(s.kind), ['ServiceAccount', 'User', 'Group'])];
}

function validateRoleRef(ref: RoleRef, namespaced: boolean): RbacFieldError[] {
  const errors: RbacFieldError[] = [];
  if (ref.apiGroup !== RBAC_GROUP) errors.push(notSupported('roleRef.apiGroup', ref.apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) errors.push(notSupported('roleRef.kind', ref.kind, kinds));
  if (!ref.name) errors.push(required('roleRef.name'));
  else
    for (const msg of validateRbacName(ref.name))
      errors.push(
        fromFieldError({ type: 'FieldValueInvalid', field: 'roleRef.name', value: ref.name, detail: msg }),
      );
  return errors;
}

function validateBinding(obj: KubeObject, namespaced: boolean): RbacFieldError[] {
  return [
    ...validateRoleRef(roleRefOf(obj), namespaced),
    ...asArray(obj.subjects).flatMap((s, i) => validateSubject(s ?? {}, namespaced, `subjects[${i}]`)),
  ];
}

/** The kind-specific checks (metadata, names included, is left to the server's ObjectMeta validation). */
function validateObject(def: ResourceDef, obj: KubeObject): RbacFieldError[] {
  switch (def.kind) {
    case 'Role':
      return validateRules(obj, true);
    case 'ClusterRole':
      return [...validateRules(obj, false), ...validateAggregation(obj)];
    case 'RoleBinding':
      return validateBinding(obj, true);
    default:
      return validateBinding(obj, false);
  }
}

function sameRoleRef(a: RoleRef, b: RoleRef): boolean {
  return a.apiGroup === b.apiGroup && a.kind === b.kind && a.name === b.name;
}

/**
 * Defaults and validates an RBAC object about to be stored (`previous`: the stored object on an
 * update). Returns the defaulted object, or throws 422. Objects of other kinds pass unchanged.
 */
export function prepareRbacWrite(def: ResourceDef, obj: KubeObject, previous?: KubeObject): KubeObject {
  if (!isRbacDef(def)) return obj;
  const out = defaultRbacObject(def, obj);
  const errors = validateObject(def, out);
  const binding = def.kind === 'RoleBinding' || def.kind === 'ClusterRoleBinding';
  if (previous && binding) {
    const ref = roleRefOf(out);
    if (!sameRoleRef(ref, roleRefOf(defaultRbacObject(def, previous)))) {
      const value = goStruct('rbac.RoleRef', [
        ['APIGroup', ref.apiGroup],
        ['Kind', ref.kind],
        ['Name', ref.name],
      ]);
      errors.push(goInvalid('roleRef', value, 'cannot change roleRef'));
    }
  }
  if (errors.length) throw invalidError(def, obj.metadata.name ?? '', errors);
  return out;
}
