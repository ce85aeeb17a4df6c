/**
 * Kubernetes `Status` errors: every failure the server answers with is one of these, so a client
 * sees the same code, reason and message shape a real API server sends.
 */

import type { StatusReason } from '@landscape/apimachinery';

export type { StatusReason } from '@landscape/apimachinery';

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message: string;
  reason: StatusReason | '';
  details?: StatusDetails;
  code: number;
}

/** A failure answered as a Kubernetes Status object. */
export class StatusError extends Error {
  /** ListMeta of the Status (a 410 for an old continue token carries a fresh one). */
  metadata: { continue?: string } = {};
  /** For 415: the content type that was refused (kept for logs, not part of the Status). */
  contentType?: string;

  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'StatusError';
  }

  toStatus(): StatusBody {
    const body: StatusBody = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: this.metadata,
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) body.details = this.details;
    return body;
  }
}

/** The `<resource>.<group>` form Kubernetes uses in messages ("deployments.apps", "configmaps"). */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualified(gr)} "${name}" not found`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function resourceNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`,
    {
      name,
      group: gr.group,
      kind: gr.resource,
    },
  );
}

export const MODIFIED_CONFLICT =
  'the object has been modified; please apply your changes to the latest version and try again';

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export function forbidden(gr: GroupResource, name: string, why: string): StatusError {
  const subject = name ? `${qualified(gr)} "${name}"` : qualified(gr);
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, {
    name: name || undefined,
    group: gr.group,
    kind: gr.resource,
  });
}

export function methodNotAllowed(): StatusError {
  return new StatusError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  );
}

const DEFAULT_ACCEPTED = 'application/json, application/json-patch+json, application/merge-patch+json';

/** 415, worded as the API server words it; `accepted` lists what the endpoint takes. */
export function unsupportedMediaType(contentType: string, accepted = DEFAULT_ACCEPTED): StatusError {
  const err = new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
  );
  err.contentType = contentType;
  return err;
}

export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Gone', message);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ reason: 'UnexpectedServerResponse', message }],
  });
}

/** A field-level validation failure, rendered as Kubernetes renders `field.Error`. */
export interface FieldError {
  type:
    | 'FieldValueRequired'
    | 'FieldValueInvalid'
    | 'FieldValueNotSupported'
    | 'FieldValueForbidden'
    | 'FieldValueTooLong'
    | 'FieldValueDuplicate'
    | 'FieldValueTypeInvalid';
  field: string;
  detail?: string;
  value?: unknown;
}

function renderValue(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}

const LABELS: Record<FieldError['type'], string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTypeInvalid: 'Invalid value',
};

export function renderFieldError(e: FieldError): string {
  const withValue =
    e.type === 'FieldValueInvalid' ||
    e.type === 'FieldValueNotSupported' ||
    e.type === 'FieldValueDuplicate' ||
    e.type === 'FieldValueTypeInvalid';
  let text = `${e.field}: ${LABELS[e.type]}`;
  if (withValue) text += `: ${renderValue(e.value)}`;
  if (e.detail) text += `: ${e.detail}`;
  return text;
}

/** 422 Invalid: `<Kind>.<group> "<name>" is invalid: [a, b]` as apimachinery's NewInvalid words it. */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): StatusError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const rendered = errors.map(renderFieldError);
  const list = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${list}`, {
    name,
    group,
    kind,
    causes: errors.map((e, i) => ({
      reason: e.type,
      message: rendered[i].slice(e.field.length + 2),
      field: e.field,
    })),
  });
}
