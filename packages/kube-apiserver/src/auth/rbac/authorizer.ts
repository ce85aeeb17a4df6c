/**
 * The Kubernetes RBAC authorizer (plugin/pkg/auth/authorizer/rbac and
 * pkg/registry/rbac/validation/rule.go), preceded by the privileged-group authorizer that lets
 * `system:masters` do everything:
 *
 * - ClusterRoleBindings apply everywhere; RoleBindings only in their own namespace, whether they
 *   reference a Role (of that namespace) or a ClusterRole (whose rules then apply to that
 *   namespace only);
 * - a rule allows a resource request when its verbs, apiGroups, resources (`*`, `res/sub`,
 *   `* /sub`) and resourceNames (empty = any; otherwise the request must name one of them, which
 *   list/watch do only through a `metadata.name` field selector, and create/deletecollection never)
 *   match, and a non-resource request when its verbs and nonResourceURLs (`*`, exact, `prefix*`)
 *   match;
 * - subjects are User (the username), Group (any of the user's groups) and ServiceAccount
 *   (`system:serviceaccount:<ns>:<name>`, the namespace defaulting to the RoleBinding's);
 * - bindings whose role does not exist add `RBAC: role.rbac.authorization.k8s.io "x" not found`
 *   to the reason of a denial, as a real server does.
 */
import type { KubeObject } from '../../api/types.js';
import {
  roleRefOf,
  rulesOf,
  subjectsOf,
  SERVICE_ACCOUNT_PREFIX,
  SYSTEM_MASTERS,
  type Attributes,
  type Decision,
  type PolicyRule,
  type RbacObjects,
  type RoleRef,
  type Subject,
  type UserInfo,
} from './types.js';
import { goQuote } from '@landscape/apimachinery';

const ALL = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === ALL || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group);
}

/** `*`, the exact `resource[/subresource]`, or `* /subresource` (exactly `*` + `/` + the subresource). */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  return (rule.resources ?? []).some((r) => {
    if (r === ALL || r === combined) return true;
    if (!subresource) return false;
    return r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource);
  });
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*`, the exact path, or a rule ending in `*` whose prefix (all trailing `*` trimmed) starts the path. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => {
    if (u === ALL || u === path) return true;
    return u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''));
  });
}

export function isResourceRequest(attrs: Attributes): boolean {
  return attrs.resourceRequest ?? (attrs.resource !== undefined && attrs.resource !== '');
}

/** `resource/subresource` as rules name it. */
function combinedResource(attrs: Attributes): string {
  const resource = attrs.resource ?? '';
  return attrs.subresource ? `${resource}/${attrs.subresource}` : resource;
}

/** RuleAllows: whether one policy rule allows the request. */
export function ruleAllows(attrs: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!isResourceRequest(attrs)) return nonResourceURLMatches(rule, attrs.path ?? '');
  return (
    apiGroupMatches(rule, attrs.apiGroup ?? '') &&
    resourceMatches(rule, combinedResource(attrs), attrs.subresource ?? '') &&
    resourceNameMatches(rule, attrs.name ?? '')
  );
}

/** appliesToUser: whether one binding subject is the user (ServiceAccount namespace defaults to `namespace`). */
export function subjectMatches(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || namespace;
      if (!ns) return false;
      return user.username === `${SERVICE_ACCOUNT_PREFIX}${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

function appliesTo(user: UserInfo, subjects: Subject[], namespace: string): Subject | undefined {
  return subjects.find((s) => subjectMatches(user, s, namespace));
}

/** Where an allowing rule came from, as the authorizer's reason describes it. */
function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount')
    return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

function describeBinding(binding: KubeObject, ref: RoleRef, subject: Subject): string {
  const ns = binding.metadata.namespace ?? '';
  const name = binding.metadata.name ?? '';
  const what = ns ? `RoleBinding ${goQuote(`${name}/${ns}`)}` : `ClusterRoleBinding ${goQuote(name)}`;
  return `${what} of ${ref.kind} ${goQuote(ref.name)} to ${describeSubject(subject, ns)}`;
}

/** Roles by `namespace/name` and ClusterRoles by name, built once per authorization. */
class RoleIndex {
  private readonly roles = new Map<string, KubeObject>();
  private readonly clusterRoles = new Map<string, KubeObject>();

  constructor(objects: RbacObjects) {
    for (const r of objects.roles) this.roles.set(`${r.metadata.namespace ?? ''}/${r.metadata.name}`, r);
    for (const r of objects.clusterRoles) this.clusterRoles.set(r.metadata.name ?? '', r);
  }

  /** GetRoleReferenceRules: the rules a binding grants, or the error a real server reports. */
  rules(ref: RoleRef, bindingNamespace: string): PolicyRule[] | string {
    if (ref.kind === 'Role') {
      const role = this.roles.get(`${bindingNamespace}/${ref.name}`);
      return role ? rulesOf(role) : `role.rbac.authorization.k8s.io ${goQuote(ref.name)} not found`;
    }
    if (ref.kind === 'ClusterRole') {
      const role = this.clusterRoles.get(ref.name);
      return role ? rulesOf(role) : `clusterrole.rbac.authorization.k8s.io ${goQuote(ref.name)} not found`;
    }
    return `unsupported role reference kind: ${goQuote(ref.kind)}`;
  }
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several deduplicated in brackets. */
function aggregate(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** The bindings VisitRulesFor walks: every ClusterRoleBinding, then the RoleBindings of the namespace. */
function bindingsFor(objects: RbacObjects, namespace: string): KubeObject[] {
  const local = namespace ? objects.roleBindings.filter((b) => b.metadata.namespace === namespace) : [];
  return [...objects.clusterRoleBindings, ...local];
}

/** RBACAuthorizer.Authorize (after the system:masters short cut). */
export function authorize(attrs: Attributes, objects: RbacObjects): Decision {
  if (attrs.user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
  const namespace = attrs.namespace ?? '';
  const index = new RoleIndex(objects);
  const errors: string[] = [];
  for (const binding of bindingsFor(objects, namespace)) {
    const bindingNamespace = binding.metadata.namespace ?? '';
    const subject = appliesTo(attrs.user, subjectsOf(binding), bindingNamespace);
    if (!subject) continue;
    const ref = roleRefOf(binding);
    const rules = index.rules(ref, bindingNamespace);
    if (typeof rules === 'string') {
      errors.push(rules);
      continue;
    }
    if (rules.some((rule) => ruleAllows(attrs, rule)))
      return { allowed: true, reason: `RBAC: allowed by ${describeBinding(binding, ref, subject)}` };
  }
  return { allowed: false, reason: errors.length ? `RBAC: ${aggregate(errors)}` : '' };
}

/** RulesFor: every rule that applies to the user in a namespace (for SelfSubjectRulesReview-like answers). */
export function rulesFor(
  user: UserInfo,
  namespace: string,
  objects: RbacObjects,
): { rules: PolicyRule[]; errors: string[] } {
  const index = new RoleIndex(objects);
  const out: PolicyRule[] = [];
  const errors: string[] = [];
  for (const binding of bindingsFor(objects, namespace)) {
    const bindingNamespace = binding.metadata.namespace ?? '';
    if (!appliesTo(user, subjectsOf(binding), bindingNamespace)) continue;
    const rules = index.rules(roleRefOf(binding), bindingNamespace);
    if (typeof rules === 'string') errors.push(rules);
    else out.push(...rules);
  }
  return { rules: out, errors };
}
