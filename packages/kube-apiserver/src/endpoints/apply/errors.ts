/**
 * The failures of server-side apply, worded as a Kubernetes 1.32 API server words them: the 409
 * of apply conflicts (NewConflictError), the 500 of an apply configuration the type converter
 * refuses, the 400s of a malformed request.
 */
import { badRequest, StatusError, type StatusBody, type StatusCause } from '../../api/errors.js';
import { parseManagerId } from './managed.js';
import { pathString } from './path.js';
import type { Conflict } from './updater.js';

/** printManager: `"kubectl"`, `"x" with subresource "status"`, `"kubectl-client-side-apply" using v1`. */
export function printManager(id: string): string {
  let info;
  try {
    info = parseManagerId(id);
  } catch {
    return JSON.stringify(id);
  }
  let out = JSON.stringify(info.manager ?? '');
  if (info.subresource) out += ` with subresource ${JSON.stringify(info.subresource)}`;
  if (info.operation === 'Update') out += ` using ${info.apiVersion ?? ''}`;
  return out;
}

/** getConflictMessage: one conflict inline; several grouped by manager (sorted), one path per line. */
export function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) {
    const [c] = conflicts;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts)
    byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), pathString(c.path)]);
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const p of byManager.get(manager)!) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** 409 Conflict of an apply that would change fields other managers own (details carry only causes). */
export class ApplyConflictError extends StatusError {
  constructor(readonly conflicts: Conflict[]) {
    const causes: StatusCause[] = conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${printManager(c.manager)}`,
      field: pathString(c.path),
    }));
    super(409, 'Conflict', conflictMessage(conflicts), { causes });
    this.name = 'ApplyConflictError';
  }
}

/**
 * A failure that is not a Status in the Go server (a plain error): 500 with no reason, the error
 * text as message, e.g. `failed to create typed patch object (default/x; /v1, Kind=ConfigMap):
 * .foo: field not declared in schema`.
 */
export class PlainServerError extends StatusError {
  constructor(message: string) {
    super(500, 'InternalError', message);
    this.name = 'PlainServerError';
  }

  override toStatus(): StatusBody {
    const { reason: _reason, ...rest } = super.toStatus();
    return rest as StatusBody;
  }
}

/** ValidationErrors.Error(): one error bare, several under `errors:` one per indented line. */
export function typedPatchError(gvknn: string, errors: string[]): PlainServerError {
  const text = errors.length === 1 ? errors[0] : ['errors:', ...errors.map((e) => `  ${e}`)].join('\n');
  return new PlainServerError(`failed to create typed patch object (${gvknn}): ${text}`);
}

export function managedFieldsMustBeNil(): StatusError {
  return badRequest('metadata.managedFields must be nil');
}

export function invalidObjectType(gvk: string): StatusError {
  return badRequest(`invalid object type: ${gvk}`);
}
