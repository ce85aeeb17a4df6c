/**
 * The `serviceaccounts/token` subresource (authentication.k8s.io/v1 TokenRequest) as
 * pkg/registry/core/serviceaccount/storage/token.go serves it:
 *
 *   POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token
 *   { "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
 *     "spec": { "audiences": [...], "expirationSeconds": 3600, "boundObjectRef": {...} } }
 *   → 201 { ..., "metadata": { "name", "namespace", "creationTimestamp" },
 *           "spec": { "audiences", "expirationSeconds", "boundObjectRef" },
 *           "status": { "token", "expirationTimestamp" } }
 *
 * 404 for an unknown service account; 422 when metadata.name/namespace contradict the URL or
 * expirationSeconds is under 600 or over 2^32; bound objects (Pod, Secret, Node) must exist (404),
 * match a given uid (409) and, for a Pod, run as this service account (400).
 */
import { formatTime } from '@landscape/apimachinery';
import { badRequest, conflict, invalid, notFound, type FieldError } from '../../api/errors.js';
import type { JSONSchemaProps, KubeObject, ResourceDef } from '../../api/types.js';
import { int64, kindProps, obj, str, stringList } from '../../registry/builtins/schema.js';
import { DEFAULT_AUDIENCES, issueToken, type ObjectLookup, type TokenKey } from './tokens.js';

const GROUP = 'authentication.k8s.io';
const MIN_EXPIRATION = 600;
const MAX_EXPIRATION = 2 ** 32;

function nullable(node: JSONSchemaProps): JSONSchemaProps {
  return { ...node, nullable: true };
}

/**
 * TokenRequest as a decodable kind (not served as a resource of its own): decode the body with
 * it (`decodeObject(tokenRequestDef(), body, opts)`) before `createTokenRequest`.
 */
export function tokenRequestDef(): ResourceDef {
  return {
    group: GROUP,
    version: 'v1',
    kind: 'TokenRequest',
    listKind: 'TokenRequestList',
    plural: 'tokenrequests',
    singular: 'tokenrequest',
    shortNames: [],
    categories: [],
    namespaced: true,
    schema: obj(
      kindProps({
        spec: obj({
          audiences: nullable(stringList()),
          boundObjectRef: nullable(obj({ apiVersion: str(), kind: str(), name: str(), uid: str() })),
          expirationSeconds: int64(),
        }),
        status: obj({ expirationTimestamp: { type: 'string', format: 'date-time' }, token: str() }),
      }),
    ),
    subresources: {},
    printerColumns: [],
    builtin: true,
  };
}

export interface BoundObjectReference {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

export interface TokenRequestSpec {
  audiences?: string[] | null;
  expirationSeconds?: number;
  boundObjectRef?: BoundObjectReference | null;
}

export interface CreateTokenRequestOptions {
  /** Namespace and service account name from the URL. */
  namespace: string;
  name: string;
  /** The decoded TokenRequest body. */
  body: KubeObject;
  key: TokenKey;
  lookup: ObjectLookup;
  /** The API server's audiences (the default for a request without any). */
  audiences?: readonly string[];
  issuer?: string;
  now?: Date;
}

function invalidRequest(name: string, errors: FieldError[]): never {
  throw invalid('TokenRequest', GROUP, name, errors);
}

function checkTarget(o: CreateTokenRequestOptions): void {
  const { name, namespace } = o.body.metadata;
  if (name && name !== o.name)
    invalidRequest(o.name, [
      {
        type: 'FieldValueInvalid',
        field: 'metadata.name',
        value: name,
        detail: 'must match the service account name if specified',
      },
    ]);
  if (namespace && namespace !== o.namespace)
    invalidRequest(o.name, [
      {
        type: 'FieldValueInvalid',
        field: 'metadata.namespace',
        value: namespace,
        detail: 'must match the service account namespace if specified',
      },
    ]);
}

/** ValidateTokenRequest (reported with an empty name, as the real registry does). */
function checkExpiration(seconds: number): void {
  if (seconds < MIN_EXPIRATION)
    invalidRequest('', [
      {
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        value: seconds,
        detail: 'may not specify a duration less than 10 minutes',
      },
    ]);
  if (seconds > MAX_EXPIRATION)
    invalidRequest('', [
      {
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        value: seconds,
        detail: 'may not specify a duration larger than 2^32 seconds',
      },
    ]);
}

interface Bound {
  pod?: { name: string; uid: string };
  secret?: { name: string; uid: string };
  node?: { name: string; uid: string };
}

const BINDABLE: Record<string, 'pods' | 'secrets' | 'nodes'> = {
  Pod: 'pods',
  Secret: 'secrets',
  Node: 'nodes',
};

function groupOf(apiVersion: string | undefined): { group: string; version: string } {
  const v = apiVersion ?? '';
  const slash = v.indexOf('/');
  return slash < 0 ? { group: '', version: v } : { group: v.slice(0, slash), version: v.slice(slash + 1) };
}

function bindablePlural(ref: BoundObjectReference): 'pods' | 'secrets' | 'nodes' {
  const { group, version } = groupOf(ref.apiVersion);
  const kind = ref.kind ?? '';
  const plural = group === '' && Object.hasOwn(BINDABLE, kind) ? BINDABLE[kind] : undefined;
  if (!plural) throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  return plural;
}

function lookupBound(o: CreateTokenRequestOptions, ref: BoundObjectReference): KubeObject {
  const plural = bindablePlural(ref);
  const name = ref.name ?? '';
  const found = o.lookup(plural, plural === 'nodes' ? undefined : o.namespace, name);
  if (!found) throw notFound({ group: '', resource: plural }, name);
  const runsAs = (found.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName;
  if (plural === 'pods' && runsAs !== o.name)
    throw badRequest(
      `cannot bind token for serviceaccount "${o.name}" to pod running with different serviceaccount name.`,
    );
  if (ref.uid && ref.uid !== found.metadata.uid)
    throw conflict(
      { group: '', resource: ref.kind! },
      name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  return found;
}

/** The objects a token is bound to (a Pod brings its Node along when it is scheduled). */
function boundObjects(o: CreateTokenRequestOptions, ref: BoundObjectReference | null | undefined): Bound {
  if (!ref) return {};
  const found = lookupBound(o, ref);
  const self = { name: found.metadata.name ?? '', uid: found.metadata.uid ?? '' };
  if (ref.kind === 'Secret') return { secret: self };
  if (ref.kind === 'Node') return { node: self };
  const nodeName = (found.spec as { nodeName?: string } | undefined)?.nodeName;
  if (!nodeName) return { pod: self };
  const node = o.lookup('nodes', undefined, nodeName);
  return { pod: self, node: { name: nodeName, uid: node?.metadata.uid ?? '' } };
}

/** Serves a TokenRequest: the TokenRequest to answer with 201, or throws the StatusError. */
export function createTokenRequest(o: CreateTokenRequestOptions): KubeObject {
  checkTarget(o);
  const sa = o.lookup('serviceaccounts', o.namespace, o.name);
  if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, o.name);
  const spec = (o.body.spec ?? {}) as TokenRequestSpec;
  const audiences = spec.audiences?.length ? spec.audiences : [...(o.audiences ?? DEFAULT_AUDIENCES)];
  const expirationSeconds = spec.expirationSeconds ?? 3600;
  checkExpiration(expirationSeconds);
  const bound = boundObjects(o, spec.boundObjectRef);
  const now = o.now ?? new Date();
  const issued = issueToken({
    key: o.key,
    namespace: o.namespace,
    serviceAccountName: o.name,
    uid: sa.metadata.uid ?? '',
    audiences,
    expirationSeconds,
    now,
    issuer: o.issuer,
    ...bound,
  });
  return {
    kind: 'TokenRequest',
    apiVersion: `${GROUP}/v1`,
    metadata: {
      ...o.body.metadata,
      name: o.name,
      namespace: o.namespace,
      creationTimestamp: formatTime(now),
    },
    spec: { audiences, expirationSeconds, boundObjectRef: spec.boundObjectRef ?? null },
    status: { token: issued.token, expirationTimestamp: issued.expirationTimestamp },
  };
}
