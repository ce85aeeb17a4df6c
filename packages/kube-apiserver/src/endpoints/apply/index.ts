/**
 * Server-side apply and managedFields for the embedded API server (Kubernetes 1.32 semantics).
 * See apply.ts for the two entry points and request.ts for the REST-level helpers.
 */
export { applyPatch, trackUpdate, type ApplyPatchOptions, type TrackUpdateOptions } from './apply.js';
export { ApplyConflictError, PlainServerError, conflictMessage, printManager } from './errors.js';
export { FieldSet } from './fieldset.js';
export { LAST_APPLIED, buildLastApplied } from './lastapplied.js';
export {
  decodeManaged,
  encodeManaged,
  managerId,
  type ManagedFieldsEntry,
  type Operation,
} from './managed.js';
export { pathString, type Path, type PathElement } from './path.js';
export {
  applyOptionsOf,
  checkApplyName,
  defaultManager,
  fieldManagerOf,
  parseApplyBody,
  type ApplyOptions,
  type WriteVerb,
} from './request.js';
export { contextOf, rootSchema } from './schema.js';
export { compareObjects, fieldSetOf } from './walk.js';
export { zeroObject } from './zero.js';
