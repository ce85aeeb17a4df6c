/**
 * Request bodies kubectl 1.32 sent for RBAC and auth commands, captured from `kubectl -v=9` (its
 * hex dump of the "Request Body") against `npm start -- --rbac`. The JSON is what the decoder must
 * give: for the rbac.authorization.k8s.io kinds the same command's `--dry-run=client -o json`
 * (less `creationTimestamp: null` and `rules: null`); for TokenRequest, SelfSubjectAccessReview and
 * SelfSubjectRulesReview, which have no dry-run output, encoding/json's form of the decoded Go
 * object, less its nulls (`audiences`, `expirationSeconds`, `boundObjectRef`, `expirationTimestamp`,
 * `resourceRules`, `nonResourceRules`).
 */
/** One request body kubectl sent, with the command, the request line and the JSON it decodes to. */
export interface KubectlCapture {
  command: string;
  path: string;
  body: string;
  json: Record<string, unknown>;
}

export const KUBECTL_RBAC_CAPTURES: Record<string, KubectlCapture> = {
  role: {
    command: 'kubectl create role r --verb=get,list --resource=configmaps',
    path: 'POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
    body: 'azhzAAokChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgRSb2xlEi4KEQoBchIAGgAiACoAMgA4AEIAEhkKA2dldAoEbGlzdBIAGgpjb25maWdtYXBzGgAiAA==',
    json: {
      kind: 'Role',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'r' },
      rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }],
    },
  },
  roleMulti: {
    command:
      'kubectl create role multi --verb=get --verb=watch --resource=pods,deployments.apps --resource-name=a --resource-name=b',
    path: 'POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
    body: 'azhzAAokChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgRSb2xlEloKFQoFbXVsdGkSABoAIgAqADIAOABCABIaCgNnZXQKBXdhdGNoEgAaBHBvZHMiAWEiAWISJQoDZ2V0CgV3YXRjaBIEYXBwcxoLZGVwbG95bWVudHMiAWEiAWIaACIA',
    json: {
      kind: 'Role',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'multi' },
      rules: [
        { verbs: ['get', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: ['a', 'b'] },
        {
          verbs: ['get', 'watch'],
          apiGroups: ['apps'],
          resources: ['deployments'],
          resourceNames: ['a', 'b'],
        },
      ],
    },
  },
  clusterRole: {
    command: 'kubectl create clusterrole cr --verb=get,list,watch --resource=pods',
    path: 'POST /apis/rbac.authorization.k8s.io/v1/clusterroles',
    body: 'azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtDbHVzdGVyUm9sZRIwChIKAmNyEgAaACIAKgAyADgAQgASGgoDZ2V0CgRsaXN0CgV3YXRjaBIAGgRwb2RzGgAiAA==',
    json: {
      kind: 'ClusterRole',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'cr' },
      rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }],
    },
  },
  clusterRoleNonResource: {
    command: 'kubectl create clusterrole nr --verb=get --non-resource-url=/logs/*',
    path: 'POST /apis/rbac.authorization.k8s.io/v1/clusterroles',
    body: 'azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtDbHVzdGVyUm9sZRIkChIKAm5yEgAaACIAKgAyADgAQgASDgoDZ2V0KgcvbG9ncy8qGgAiAA==',
    json: {
      kind: 'ClusterRole',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'nr' },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/logs/*'] }],
    },
  },
  clusterRoleAggregated: {
    command:
      'kubectl create clusterrole agg --aggregation-rule=rbac.example.com/aggregate-to-monitoring=true',
    path: 'POST /apis/rbac.authorization.k8s.io/v1/clusterroles',
    body: 'azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtDbHVzdGVyUm9sZRJLChMKA2FnZxIAGgAiACoAMgA4AEIAGjQKMgowCihyYmFjLmV4YW1wbGUuY29tL2FnZ3JlZ2F0ZS10by1tb25pdG9yaW5nEgR0cnVlGgAiAA==',
    json: {
      kind: 'ClusterRole',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'agg' },
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }],
      },
    },
  },
  roleBinding: {
    command: 'kubectl create rolebinding rb --role=r --serviceaccount=default:fn',
    path: 'POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
    body: 'azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtSb2xlQmluZGluZxJbChIKAnJiEgAaACIAKgAyADgAQgASHwoOU2VydmljZUFjY291bnQSABoCZm4iB2RlZmF1bHQaJAoZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxIEUm9sZRoBchoAIgA=',
    json: {
      kind: 'RoleBinding',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'rb' },
      subjects: [{ kind: 'ServiceAccount', name: 'fn', namespace: 'default' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    },
  },
  roleBindingClusterRole: {
    command:
      'kubectl create rolebinding rb2 --clusterrole=view --user=alice --group=devs --serviceaccount=other:bot',
    path: 'POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
    body: 'azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtSb2xlQmluZGluZxK9AQoTCgNyYjISABoAIgAqADIAOABCABIqCgRVc2VyEhlyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvGgVhbGljZSIAEioKBUdyb3VwEhlyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvGgRkZXZzIgASHgoOU2VydmljZUFjY291bnQSABoDYm90IgVvdGhlchouChlyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvEgtDbHVzdGVyUm9sZRoEdmlldxoAIgA=',
    json: {
      kind: 'RoleBinding',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'rb2' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
        { kind: 'ServiceAccount', name: 'bot', namespace: 'other' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    },
  },
  clusterRoleBinding: {
    command:
      'kubectl create clusterrolebinding crb --clusterrole=cr --user=alice --group=devs --serviceaccount=default:fn',
    path: 'POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    body: 'azhzAAoyChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEhJDbHVzdGVyUm9sZUJpbmRpbmcSvAEKEwoDY3JiEgAaACIAKgAyADgAQgASKgoEVXNlchIZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxoFYWxpY2UiABIqCgVHcm91cBIZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxoEZGV2cyIAEh8KDlNlcnZpY2VBY2NvdW50EgAaAmZuIgdkZWZhdWx0GiwKGXJiYWMuYXV0aG9yaXphdGlvbi5rOHMuaW8SC0NsdXN0ZXJSb2xlGgJjchoAIgA=',
    json: {
      kind: 'ClusterRoleBinding',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'crb' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
        { kind: 'ServiceAccount', name: 'fn', namespace: 'default' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr' },
    },
  },
  tokenRequest: {
    command: 'kubectl create token fn',
    path: 'POST /api/v1/namespaces/default/serviceaccounts/fn/token',
    body: 'azhzAAooChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESDFRva2VuUmVxdWVzdBIaChAKABIAGgAiACoAMgA4AEIAEgAaBAoAEgAaACIA',
    json: {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {},
      spec: {},
      status: { token: '' },
    },
  },
  tokenRequestOptions: {
    command: 'kubectl create token fn --duration=1h --audience=https://a.example --audience=b',
    path: 'POST /api/v1/namespaces/default/serviceaccounts/fn/token',
    body: 'azhzAAooChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESDFRva2VuUmVxdWVzdBIzChAKABIAGgAiACoAMgA4AEIAEhkKEWh0dHBzOi8vYS5leGFtcGxlCgFiIJAcGgQKABIAGgAiAA==',
    json: {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {},
      spec: { audiences: ['https://a.example', 'b'], expirationSeconds: 3600 },
      status: { token: '' },
    },
  },
  tokenRequestBound: {
    command:
      'kubectl create token fn --bound-object-kind=Pod --bound-object-name=p --bound-object-uid=0d8b1c2e-1111-2222-3333-444455556666',
    path: 'POST /api/v1/namespaces/default/serviceaccounts/fn/token',
    body: 'azhzAAooChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESDFRva2VuUmVxdWVzdBJOChAKABIAGgAiACoAMgA4AEIAEjQaMgoDUG9kEgJ2MRoBcCIkMGQ4YjFjMmUtMTExMS0yMjIyLTMzMzMtNDQ0NDU1NTU2NjY2GgQKABIAGgAiAA==',
    json: {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {},
      spec: {
        boundObjectRef: {
          kind: 'Pod',
          apiVersion: 'v1',
          name: 'p',
          uid: '0d8b1c2e-1111-2222-3333-444455556666',
        },
      },
      status: { token: '' },
    },
  },
  accessReview: {
    command: 'kubectl auth can-i create configmaps',
    path: 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: 'azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSRQoQCgASABoAIgAqADIAOABCABInCiUKB2RlZmF1bHQSBmNyZWF0ZRoAIgAqCmNvbmZpZ21hcHMyADoAGggIABIAGgAgABoAIgA=',
    json: {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'configmaps' } },
      status: { allowed: false },
    },
  },
  accessReviewSubresource: {
    command: 'kubectl auth can-i get pods --subresource=log -n kube-system',
    path: 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: 'azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSQwoQCgASABoAIgAqADIAOABCABIlCiMKC2t1YmUtc3lzdGVtEgNnZXQaACIAKgRwb2RzMgNsb2c6ABoICAASABoAIAAaACIA',
    json: {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec: {
        resourceAttributes: { namespace: 'kube-system', verb: 'get', resource: 'pods', subresource: 'log' },
      },
      status: { allowed: false },
    },
  },
  accessReviewNonResource: {
    command: 'kubectl auth can-i get /logs',
    path: 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: 'azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSLAoQCgASABoAIgAqADIAOABCABIOEgwKBS9sb2dzEgNnZXQaCAgAEgAaACAAGgAiAA==',
    json: {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec: { nonResourceAttributes: { path: '/logs', verb: 'get' } },
      status: { allowed: false },
    },
  },
  accessReviewAllNamespaces: {
    command: 'kubectl auth can-i list secrets --all-namespaces',
    path: 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: 'azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSOQoQCgASABoAIgAqADIAOABCABIbChkKABIEbGlzdBoAIgAqB3NlY3JldHMyADoAGggIABIAGgAgABoAIgA=',
    json: {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec: { resourceAttributes: { verb: 'list', resource: 'secrets' } },
      status: { allowed: false },
    },
  },
  accessReviewNamed: {
    command: 'kubectl auth can-i get deployments.apps/web',
    path: 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: 'azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSSgoQCgASABoAIgAqADIAOABCABIsCioKB2RlZmF1bHQSA2dldBoEYXBwcyIAKgtkZXBsb3ltZW50czIAOgN3ZWIaCAgAEgAaACAAGgAiAA==',
    json: {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec: {
        resourceAttributes: {
          namespace: 'default',
          verb: 'get',
          group: 'apps',
          resource: 'deployments',
          name: 'web',
        },
      },
      status: { allowed: false },
    },
  },
  rulesReview: {
    command: 'kubectl auth can-i --list',
    path: 'POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
    body: 'azhzAAoxChdhdXRob3JpemF0aW9uLms4cy5pby92MRIWU2VsZlN1YmplY3RSdWxlc1JldmlldxIjChAKABIAGgAiACoAMgA4AEIAEgkKB2RlZmF1bHQaBBgAIgAaACIA',
    json: {
      kind: 'SelfSubjectRulesReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec: { namespace: 'default' },
      status: { incomplete: false },
    },
  },
};
