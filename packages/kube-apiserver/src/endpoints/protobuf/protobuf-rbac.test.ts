/**
 * rbac.authorization.k8s.io/v1, authentication.k8s.io/v1 TokenRequest and authorization.k8s.io/v1
 * access reviews: hand-built bodies for what kubectl's captures (protobuf-rbac.fixtures.ts, decoded
 * and round-tripped in kubectl.test.ts) do not show.
 */
import {
  decodeProtobufObject,
  PROTOBUF_CONTENT_TYPE,
  requestBodyText,
  supportedProtobufKinds,
} from './index.js';
import { KUBECTL_RBAC_CAPTURES } from './protobuf-rbac.fixtures.js';

type Bytes = number[];
const varint = (n: number): Bytes => {
  const out: Bytes = [];
  let v = n;
  for (; v >= 0x80; v = Math.floor(v / 128)) out.push((v % 128) | 0x80);
  return [...out, v];
};
const int = (field: number, n: number): Bytes => [...varint(field * 8), ...varint(n)];
const raw = (field: number, data: Bytes): Bytes => [
  ...varint(field * 8 + 2),
  ...varint(data.length),
  ...data,
];
const str = (field: number, s: string): Bytes => raw(field, [...Buffer.from(s, 'utf8')]);
const msg = (field: number, ...parts: Bytes[]): Bytes => raw(field, parts.flat());
const envelope = (apiVersion: string, kind: string, ...object: Bytes[]): Buffer =>
  Buffer.from([...Buffer.from('k8s\0'), ...msg(1, str(1, apiVersion), str(2, kind)), ...msg(2, ...object)]);

const RBAC = 'rbac.authorization.k8s.io/v1';

describe('RBAC kinds', () => {
  it('are all supported, with TokenRequest and the self access reviews', () => {
    expect(supportedProtobufKinds()).toEqual(
      expect.arrayContaining([
        `${RBAC}/Role`,
        `${RBAC}/ClusterRole`,
        `${RBAC}/RoleBinding`,
        `${RBAC}/ClusterRoleBinding`,
        'authentication.k8s.io/v1/TokenRequest',
        'authorization.k8s.io/v1/SelfSubjectAccessReview',
        'authorization.k8s.io/v1/SelfSubjectRulesReview',
      ]),
    );
  });

  it('keeps the "" of roleRef fields and of subject kind/name (no omitempty), drops empty apiGroup/namespace', () => {
    const body = envelope(
      RBAC,
      'ClusterRoleBinding',
      msg(1, str(1, 'crb'), msg(11, str(1, 'team'), str(2, 'a'))),
      msg(2, str(1, ''), str(2, ''), str(3, ''), str(4, '')),
      msg(3, str(1, ''), str(2, ''), str(3, '')),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'crb', labels: { team: 'a' } },
      subjects: [{ kind: '', name: '' }],
      roleRef: { apiGroup: '', kind: '', name: '' },
    });
  });

  it('decodes a ClusterRole with rules, match expressions in its aggregation rule and unknown fields', () => {
    const body = envelope(
      RBAC,
      'ClusterRole',
      msg(1, str(1, 'monitoring')),
      msg(2, str(1, '*'), str(2, '*'), str(3, '*'), str(3, 'pods/log'), str(4, 'x')),
      msg(3, msg(1, msg(2, str(1, 'tier'), str(2, 'In'), str(3, 'web'), str(3, 'db')))),
      str(99, 'from a newer kubectl'),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'monitoring' },
      rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*', 'pods/log'], resourceNames: ['x'] }],
      aggregationRule: {
        clusterRoleSelectors: [
          { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'db'] }] },
        ],
      },
    });
  });
});

describe('TokenRequest', () => {
  it('keeps an explicit expirationSeconds 0 (a pointer) and decodes a status time', () => {
    const body = envelope(
      'authentication.k8s.io/v1',
      'TokenRequest',
      msg(1, str(1, 'fn'), str(3, 'default')),
      msg(2, int(4, 0), msg(3)),
      msg(3, str(1, 'tok'), msg(2, int(1, 1767225600))),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { name: 'fn', namespace: 'default' },
      spec: { expirationSeconds: 0, boundObjectRef: {} },
      status: { token: 'tok', expirationTimestamp: '2026-01-01T00:00:00Z' },
    });
  });

  it('becomes the JSON the token subresource reads', () => {
    const { body, json } = KUBECTL_RBAC_CAPTURES.tokenRequestOptions;
    expect(JSON.parse(requestBodyText(Buffer.from(body, 'base64'), PROTOBUF_CONTENT_TYPE))).toEqual(json);
  });
});

describe('SelfSubjectAccessReview and SelfSubjectRulesReview', () => {
  it('decodes field and label selectors of resourceAttributes and a full status', () => {
    const requirement = (key: string, op: string, ...values: string[]): Bytes =>
      msg(2, str(1, key), str(2, op), ...values.map((v) => str(3, v)));
    const body = envelope(
      'authorization.k8s.io/v1',
      'SelfSubjectAccessReview',
      msg(1),
      msg(
        2,
        msg(
          1,
          str(2, 'list'),
          str(5, 'pods'),
          str(4, 'v1'),
          msg(8, str(1, 'spec.nodeName=n1'), requirement('spec.nodeName', 'In', 'n1')),
          msg(9, requirement('app', 'Exists')),
        ),
      ),
      msg(3, int(1, 1), int(4, 0), str(2, 'RBAC: allowed by ClusterRoleBinding "x"'), str(3, '')),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: {
        resourceAttributes: {
          verb: 'list',
          version: 'v1',
          resource: 'pods',
          fieldSelector: {
            rawSelector: 'spec.nodeName=n1',
            requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }],
          },
          labelSelector: { requirements: [{ key: 'app', operator: 'Exists' }] },
        },
      },
      status: { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "x"' },
    });
  });

  it('decodes the rules of a SelfSubjectRulesReview status', () => {
    const body = envelope(
      'authorization.k8s.io/v1',
      'SelfSubjectRulesReview',
      msg(2, str(1, 'ns')),
      msg(
        3,
        msg(1, str(1, 'get'), str(2, ''), str(3, 'configmaps'), str(4, 'c')),
        msg(2, str(1, 'get'), str(2, '/healthz')),
        int(3, 1),
        str(4, 'webhook: no rules'),
      ),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'ns' },
      status: {
        resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['c'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        incomplete: true,
        evaluationError: 'webhook: no rules',
      },
    });
  });
});
