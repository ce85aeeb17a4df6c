/**
 * The Kubernetes protobuf envelope (`application/vnd.kubernetes.protobuf`): the 4 magic bytes
 * `k8s\0`, then a runtime.Unknown message {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2,
 * contentEncoding = 3, contentType = 4} whose `raw` holds the object in Go-protobuf encoding
 * without its TypeMeta. decodeProtobufObject turns such a body into the object's JSON form.
 */
import type { MessageDesc } from './descriptor.js';
import { decodeMessage } from './decode.js';
import { encodeMessage } from './encode.js';
import { HorizontalPodAutoscaler, Deployment, Lease, ReplicaSet, Scale, StatefulSet } from './types/apps.js';
import { SelfSubjectAccessReview, SelfSubjectRulesReview, TokenRequest } from './types/auth.js';
import { ConfigMap, Endpoints, Event, Namespace, Secret, Service, ServiceAccount } from './types/core.js';
import { DeleteOptions } from './types/meta.js';
import { Pod } from './types/pod.js';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './types/rbac.js';
import { PersistentVolumeClaim } from './types/volume.js';
import { ProtobufFormatError, Reader, WIRE_BYTES, Writer } from './wire.js';

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';
export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Why a protobuf body was refused: it cannot be read (400), or its kind is not supported (415). */
export type ProtobufErrorReason = 'Malformed' | 'UnsupportedKind';

export class ProtobufDecodeError extends Error {
  constructor(
    message: string,
    readonly reason: ProtobufErrorReason,
  ) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

const KINDS: Readonly<Record<string, MessageDesc>> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'v1/Service': Service,
  'v1/Pod': Pod,
  'v1/Endpoints': Endpoints,
  'v1/Event': Event,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'apps/v1/ReplicaSet': ReplicaSet,
  'autoscaling/v1/Scale': Scale,
  'autoscaling/v1/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'coordination.k8s.io/v1/Lease': Lease,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'authentication.k8s.io/v1/TokenRequest': TokenRequest,
  'authorization.k8s.io/v1/SelfSubjectAccessReview': SelfSubjectAccessReview,
  'authorization.k8s.io/v1/SelfSubjectRulesReview': SelfSubjectRulesReview,
};

/** `apiVersion/kind` of every kind that decodes (DeleteOptions decodes under any apiVersion). */
export function supportedProtobufKinds(): string[] {
  return [...Object.keys(KINDS), '*/DeleteOptions'];
}

function descriptorFor(apiVersion: string, kind: string): MessageDesc | undefined {
  if (kind === 'DeleteOptions') return DeleteOptions;
  return Object.hasOwn(KINDS, `${apiVersion}/${kind}`) ? KINDS[`${apiVersion}/${kind}`] : undefined;
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

const UNKNOWN_FIELDS: Record<number, keyof Envelope> = { 2: 'raw', 3: 'contentEncoding', 4: 'contentType' };

function readEnvelope(body: Uint8Array): Envelope {
  if (body.length < 4 || !PROTOBUF_MAGIC.equals(body.subarray(0, 4))) {
    throw new ProtobufDecodeError(
      'the protobuf body does not start with the Kubernetes magic bytes "k8s\\x00"',
      'Malformed',
    );
  }
  const env: Envelope = {
    apiVersion: '',
    kind: '',
    raw: new Uint8Array(),
    contentEncoding: '',
    contentType: '',
  };
  const reader = new Reader(body.subarray(4));
  while (!reader.done) {
    const { field, wire } = reader.tag();
    if (wire !== WIRE_BYTES || (field !== 1 && !UNKNOWN_FIELDS[field])) reader.skip(wire);
    else if (field === 1) Object.assign(env, decodeMessage(TYPE_META, reader.bytes(), 'typeMeta'));
    else if (field === 2) env.raw = reader.bytes();
    else Object.assign(env, { [UNKNOWN_FIELDS[field]]: reader.string() });
  }
  return env;
}

const TYPE_META: MessageDesc = {
  name: 'TypeMeta',
  fields: { 1: { json: 'apiVersion', kind: 'string' }, 2: { json: 'kind', kind: 'string' } },
};

function checkEnvelope(env: Envelope): MessageDesc {
  if (!env.kind || !env.apiVersion) {
    throw new ProtobufDecodeError(
      'the protobuf envelope has no apiVersion or kind in its typeMeta',
      'Malformed',
    );
  }
  if (env.contentEncoding) {
    throw new ProtobufDecodeError(
      `unsupported protobuf contentEncoding "${env.contentEncoding}"`,
      'Malformed',
    );
  }
  if (env.contentType && env.contentType !== PROTOBUF_CONTENT_TYPE) {
    throw new ProtobufDecodeError(
      `unsupported contentType "${env.contentType}" inside the protobuf envelope`,
      'Malformed',
    );
  }
  const desc = descriptorFor(env.apiVersion, env.kind);
  if (!desc) {
    throw new ProtobufDecodeError(
      `protobuf decoding of kind "${env.kind}" in version "${env.apiVersion}" is not supported; send it as application/json`,
      'UnsupportedKind',
    );
  }
  return desc;
}

/**
 * Decodes a Kubernetes protobuf request body into the object's JSON form, with apiVersion and kind
 * from the envelope. Throws ProtobufDecodeError for a malformed body or an unsupported kind.
 */
export function decodeProtobufObject(body: Uint8Array): Record<string, unknown> {
  let env: Envelope;
  try {
    env = readEnvelope(body);
  } catch (e) {
    if (e instanceof ProtobufFormatError)
      throw new ProtobufDecodeError(`malformed protobuf envelope: ${e.message}`, 'Malformed');
    throw e;
  }
  const desc = checkEnvelope(env);
  try {
    return { apiVersion: env.apiVersion, kind: env.kind, ...decodeMessage(desc, env.raw, env.kind) };
  } catch (e) {
    if (!(e instanceof ProtobufFormatError)) throw e;
    throw new ProtobufDecodeError(
      `${env.kind} in version "${env.apiVersion}" cannot be decoded from protobuf: ${e.message}`,
      'Malformed',
    );
  }
}

/** Encodes an object of a supported kind (with apiVersion and kind) into the protobuf envelope. */
export function encodeProtobufObject(obj: Record<string, unknown>): Buffer {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string')
    throw new TypeError('apiVersion and kind are required');
  const desc = descriptorFor(apiVersion, kind);
  if (!desc)
    throw new TypeError(`protobuf encoding of kind "${kind}" in version "${apiVersion}" is not supported`);
  const typeMeta = new Writer().string(1, apiVersion).string(2, kind).finish();
  const unknown = new Writer()
    .bytes(1, typeMeta)
    .bytes(2, encodeMessage(desc, obj, kind))
    .string(3, '')
    .string(4, '')
    .finish();
  return Buffer.concat([PROTOBUF_MAGIC, unknown]);
}

/** True for `application/vnd.kubernetes.protobuf` (parameters ignored). */
export function isProtobufContentType(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0].trim().toLowerCase() === PROTOBUF_CONTENT_TYPE;
}
