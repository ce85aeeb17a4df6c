/**
 * Typed errors of shared/kube and helpers that read the `metav1.Status` an API error carries.
 *
 * client-node 1.x throws `ApiException<T>` with `code` (HTTP status) and `body`; for generated
 * APIs the body is the raw response text (a JSON Status as a string), for a 401 it is undefined.
 * The raw helpers here throw the same ApiException with the text body, so one set of helpers
 * serves both. Like apimachinery, a known `reason` wins and the HTTP code is the fallback.
 */
import { isOneOf, type Status, type StatusReason } from '@landscape/apimachinery';

export { isStatusReason, STATUS_REASONS, type StatusReason } from '@landscape/apimachinery';

/** The reason apimachinery assumes for a bare HTTP code (k8s.io/apimachinery/pkg/api/errors). */
const REASON_FOR_CODE: Readonly<Record<number, StatusReason>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

interface HttpErrorLike {
  code: number;
  body?: unknown;
}

/** client-node's ApiException, or anything shaped like it (duck-typed: no client-node import here). */
function isHttpError(err: unknown): err is HttpErrorLike {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'number';
}

function parseStatus(body: unknown): Status | undefined {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  const status = value as Status | null | undefined;
  return typeof status === 'object' && status !== null && status.kind === 'Status' ? status : undefined;
}

/** The HTTP status code of an API error, or undefined for anything else (network errors, bugs). */
export function statusCode(err: unknown): number | undefined {
  return isHttpError(err) ? err.code : undefined;
}

/** The Status body of an API error; a minimal Status built from the code when the body is not one. */
export function statusOf(err: unknown): Status | undefined {
  if (!isHttpError(err)) return undefined;
  const parsed = parseStatus(err.body);
  if (parsed) return parsed;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: err.code,
    reason: REASON_FOR_CODE[err.code],
  };
}

/** `Status.reason`, or the reason the HTTP code implies; undefined when err is no API error. */
export function statusReason(err: unknown): string | undefined {
  const status = statusOf(err);
  if (!status) return undefined;
  if (status.reason) return status.reason;
  return status.code === undefined ? undefined : REASON_FOR_CODE[status.code];
}

function reasonOrCode(err: unknown, reason: StatusReason, code: number): boolean {
  const status = statusOf(err);
  if (!status) return false;
  if (status.reason) return status.reason === reason;
  return (status.code ?? statusCode(err)) === code;
}

export function isNotFound(err: unknown): boolean {
  return reasonOrCode(err, 'NotFound', 404);
}

/** 409 Conflict (a stale resourceVersion); AlreadyExists is also a 409 but not a Conflict. */
export function isConflict(err: unknown): boolean {
  return reasonOrCode(err, 'Conflict', 409);
}

export function isAlreadyExists(err: unknown): boolean {
  return statusReason(err) === 'AlreadyExists';
}

export function isTooManyRequests(err: unknown): boolean {
  return reasonOrCode(err, 'TooManyRequests', 429);
}

/** 410: an expired list continue token or watch resourceVersion. */
export function isGone(err: unknown): boolean {
  const reason = statusReason(err);
  return reason === 'Expired' || reason === 'Gone' || statusCode(err) === 410;
}

/** 429, 5xx, or no HTTP answer at all (a dropped connection, a timeout): worth the same request again. */
export function isTransientError(err: unknown): boolean {
  const code = statusCode(err);
  return code === undefined || code === 429 || code >= 500;
}

/**
 * A transient error or a Conflict (a lost race on a resourceVersion): a write worth another try
 * after a fresh read. AlreadyExists is not (the object is there).
 */
export function isRetryableWrite(err: unknown): boolean {
  if (isTransientError(err)) return true;
  return isConflict(err) && !isAlreadyExists(err);
}

export function isInvalid(err: unknown): boolean {
  return reasonOrCode(err, 'Invalid', 422);
}

/** Base class of the typed errors of shared/kube. */
export class KubeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A kubeconfig that cannot be loaded (missing file, bad YAML, no current cluster). */
export class KubeConfigError extends KubeError {
  readonly source: string;
  constructor(source: string, message: string, options?: { cause?: unknown }) {
    super(`kubeconfig from ${source}: ${message}`, options);
    this.source = source;
  }
}

/** Why a Target's kubeconfig is refused. */
export const TARGET_PROBLEMS = [
  'UnsupportedTargetType',
  'InvalidTargetSpec',
  'SecretNotFound',
  'SecretKeyNotFound',
  'CrossNamespaceSecretRef',
  'MissingKubeconfig',
  'InvalidKubeconfig',
  'ForbiddenFileReference',
  'ForbiddenExec',
  'ForbiddenAuthProvider',
  'ForbiddenImpersonation',
] as const;
export type TargetProblemKind = (typeof TARGET_PROBLEMS)[number];
export const isTargetProblemKind: (value: unknown) => value is TargetProblemKind = isOneOf(TARGET_PROBLEMS);

export interface TargetProblem {
  kind: TargetProblemKind;
  /** Where, e.g. `users[0].user.exec`. */
  path: string;
  message: string;
}

/**
 * A Target whose kubeconfig the product refuses to use. Terminal: the user must fix the Target
 * (upstream code ERR_CONFIGURATION_PROBLEM). Lists every problem. Never carries the kubeconfig.
 */
export class TargetKubeconfigError extends KubeError {
  readonly code = 'ERR_CONFIGURATION_PROBLEM' as const;
  readonly problems: readonly TargetProblem[];
  readonly target: string;
  constructor(target: string, problems: readonly TargetProblem[]) {
    super(`target ${target}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
    this.target = target;
    this.problems = problems;
  }
}

/** A request the helpers cannot build (missing namespace for a namespaced kind, ...). A bug. */
export class KubeRequestError extends KubeError {}

/** updateWithConflictRetry gave up; `cause` is the last Conflict. Transient: retry later. */
export class ConflictRetryExhaustedError extends KubeError {
  readonly attempts: number;
  constructor(attempts: number, cause: unknown) {
    super(`still conflicting after ${attempts} attempts`, { cause });
    this.attempts = attempts;
  }
}
