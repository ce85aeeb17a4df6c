/**
 * k8s.io/api authentication/v1 TokenRequest (`kubectl create token`, POSTed to the
 * serviceaccounts/token subresource) and authorization/v1 SelfSubjectAccessReview
 * (`kubectl auth can-i`) and SelfSubjectRulesReview (`kubectl auth can-i --list`), from their
 * generated.proto and types.go files as of Kubernetes 1.32.
 */
import { bool, i64, KEEP, list, message, obj, str, strs, time, type MessageDesc } from '../descriptor.js';
import { LabelSelectorRequirement, ObjectMeta } from './meta.js';

/** All four fields are omitempty strings. */
export const BoundObjectReference = message('BoundObjectReference', {
  1: str('kind'),
  2: str('apiVersion'),
  3: str('name'),
  4: str('uid'),
});

/**
 * `audiences` and `boundObjectRef` have no omitempty (a Go nil is JSON `null`, left out here);
 * `expirationSeconds` is a pointer, so an explicit 0 is kept.
 */
export const TokenRequestSpec = message('TokenRequestSpec', {
  1: strs('audiences'),
  4: i64('expirationSeconds', KEEP),
  3: obj('boundObjectRef', BoundObjectReference),
});

export const TokenRequestStatus = message('TokenRequestStatus', {
  1: str('token', KEEP),
  2: time('expirationTimestamp'),
});

export const TokenRequest = message('TokenRequest', {
  1: obj('metadata', ObjectMeta),
  2: obj('spec', TokenRequestSpec),
  3: obj('status', TokenRequestStatus),
});

/** metav1.FieldSelectorRequirement: key and operator without omitempty, values omitempty. */
const FieldSelectorRequirement = message('FieldSelectorRequirement', {
  1: str('key', KEEP),
  2: str('operator', KEEP),
  3: strs('values'),
});

/** The selectors of a ResourceAttributes (AuthorizeWithSelectors, beta in 1.32). */
const selectorAttributes = (name: string, requirement: MessageDesc): MessageDesc =>
  message(name, { 1: str('rawSelector'), 2: list('requirements', requirement) });

/** Every field is omitempty; fieldSelector and labelSelector are pointers. */
export const ResourceAttributes = message('ResourceAttributes', {
  1: str('namespace'),
  2: str('verb'),
  3: str('group'),
  4: str('version'),
  5: str('resource'),
  6: str('subresource'),
  7: str('name'),
  8: obj('fieldSelector', selectorAttributes('FieldSelectorAttributes', FieldSelectorRequirement)),
  9: obj('labelSelector', selectorAttributes('LabelSelectorAttributes', LabelSelectorRequirement)),
});

export const NonResourceAttributes = message('NonResourceAttributes', {
  1: str('path'),
  2: str('verb'),
});

/** `allowed` has no omitempty; denied, reason and evaluationError have. */
export const SubjectAccessReviewStatus = message('SubjectAccessReviewStatus', {
  1: bool('allowed', KEEP),
  4: bool('denied'),
  2: str('reason'),
  3: str('evaluationError'),
});

export const SelfSubjectAccessReview = message('SelfSubjectAccessReview', {
  1: obj('metadata', ObjectMeta),
  2: obj(
    'spec',
    message('SelfSubjectAccessReviewSpec', {
      1: obj('resourceAttributes', ResourceAttributes),
      2: obj('nonResourceAttributes', NonResourceAttributes),
    }),
  ),
  3: obj('status', SubjectAccessReviewStatus),
});

/** `resourceRules`, `nonResourceRules` and the rules' `verbs` have no omitempty (nil is `null`). */
export const SubjectRulesReviewStatus = message('SubjectRulesReviewStatus', {
  1: list(
    'resourceRules',
    message('ResourceRule', {
      1: strs('verbs'),
      2: strs('apiGroups'),
      3: strs('resources'),
      4: strs('resourceNames'),
    }),
  ),
  2: list('nonResourceRules', message('NonResourceRule', { 1: strs('verbs'), 2: strs('nonResourceURLs') })),
  3: bool('incomplete', KEEP),
  4: str('evaluationError'),
});

export const SelfSubjectRulesReview = message('SelfSubjectRulesReview', {
  1: obj('metadata', ObjectMeta),
  2: obj('spec', message('SelfSubjectRulesReviewSpec', { 1: str('namespace') })),
  3: obj('status', SubjectRulesReviewStatus),
});
