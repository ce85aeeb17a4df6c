/**
 * How API errors become the item's lastError (pure).
 *
 * A rejected write is the manifest's fault when the server says so: 400 BadRequest, 405, 413, 415,
 * 422 Invalid. A 404 on a create (the namespace, or the kind, does not exist yet) is `pending`: as
 * upstream (objectapplier.go), the job stays Progressing with the error and is retried until it
 * works or the progressing timeout fires. 401/403 are ERR_UNAUTHORIZED (but 403 for a terminating
 * namespace is transient); everything else (409, 429, 5xx, network) is transient and retried.
 */
import type { ErrorCode } from '../../shared/api/landscaper.js';
import { DeployerError, NotYetError } from '../../shared/deployer/types.js';
import { statusCode, statusOf } from '../../shared/kube/index.js';

export const WRITE_PROBLEM_KINDS = ['invalid', 'unauthorized', 'pending', 'transient'] as const;
export type WriteProblemKind = (typeof WRITE_PROBLEM_KINDS)[number];

export type WriteVerb = 'create' | 'update' | 'patch' | 'delete' | 'get';

const INVALID_CODES = new Set([400, 405, 413, 415, 422]);

/** The server's message, else the error's own. */
export function apiErrorMessage(err: unknown): string {
  const message = statusOf(err)?.message;
  if (message) return message;
  return err instanceof Error ? err.message : String(err);
}

function terminatingNamespace(err: unknown): boolean {
  return (statusOf(err)?.details?.causes ?? []).some((c) => c.type === 'NamespaceTerminating');
}

export function classifyApiError(err: unknown, verb: WriteVerb): WriteProblemKind {
  const code = statusCode(err);
  if (code === undefined) return 'transient';
  if (INVALID_CODES.has(code)) return 'invalid';
  if (code === 404 && verb === 'create') return 'pending';
  if (code === 401 || (code === 403 && !terminatingNamespace(err))) return 'unauthorized';
  return 'transient';
}

/** A 404 of a create that names a missing namespace: the namespace it names. */
export function missingNamespace(err: unknown): string | undefined {
  const s = statusOf(err);
  return s?.code === 404 && s.details?.kind === 'namespaces' ? s.details.name : undefined;
}

export interface Problem {
  kind: WriteProblemKind;
  message: string;
  /** lastError.reason when it is the error's first problem (not yet). */
  reason?: string;
}

/** The codes of the worst kind among the problems. */
export function codesFor(problems: readonly Problem[]): ErrorCode[] {
  if (problems.some((p) => p.kind === 'invalid')) return ['ERR_CONFIGURATION_PROBLEM'];
  if (problems.some((p) => p.kind === 'unauthorized')) return ['ERR_UNAUTHORIZED'];
  return [];
}

/** One DeployerError for all problems (worst kind decides the codes; every message listed). */
export function problemsError(
  operation: string,
  reason: string,
  lead: string,
  problems: readonly Problem[],
): DeployerError {
  const worst = codesFor(problems);
  const shown = worst.includes('ERR_CONFIGURATION_PROBLEM')
    ? problems.filter((p) => p.kind === 'invalid')
    : problems;
  return new DeployerError(operation, reason, `${lead}: ${shown.map((p) => p.message).join('; ')}`, worst);
}

/** Upstream's join of several errors (apimachinery's NewAggregate): one alone, else `[a, b]`. */
export function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

/** Only pending/transient problems: the recoverable "not yet" error, with what got done. */
export function notYetError(
  operation: string,
  reason: string,
  problems: readonly Problem[],
  providerStatus?: Record<string, unknown>,
): NotYetError {
  return new NotYetError(operation, reason, aggregate(problems.map((p) => p.message)), providerStatus);
}

export function configurationError(
  operation: string,
  reason: string,
  lead: string,
  problems: readonly string[],
): DeployerError {
  return new DeployerError(operation, reason, `${lead}: ${problems.join('; ')}`, [
    'ERR_CONFIGURATION_PROBLEM',
  ]);
}

/** A request that failed outside of a manifest's fault (GET, discovery, ...). */
export function requestError(operation: string, reason: string, what: string, err: unknown): DeployerError {
  if (err instanceof DeployerError) return err;
  const kind = classifyApiError(err, 'get');
  const codes: ErrorCode[] = kind === 'unauthorized' ? ['ERR_UNAUTHORIZED'] : [];
  return new DeployerError(operation, reason, `${what}: ${apiErrorMessage(err)}`, codes);
}
