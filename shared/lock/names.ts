/**
 * SyncObject names (pure): `<prefix>-<uid>` in the locked object's namespace (specs/landscaper.md,
 * "SyncObject lock"). A name must be a DNS subdomain (RFC 1123, at most 253 characters), or the
 * API server refuses every create and the object would never be processed: that is a
 * {@link SyncObjectNameError}, terminal (the handler acknowledges the event instead of retrying).
 */

export const MAX_NAME_LENGTH = 253;

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A SyncObject name that cannot exist: a prefix or UID the user or the config must fix. */
export class SyncObjectNameError extends Error {
  override readonly name = 'SyncObjectNameError';
  /** Terminal: retrying gives the same answer. */
  readonly transient = false;
  constructor(
    readonly syncObjectName: string,
    readonly problem: string,
  ) {
    super(`SyncObject name ${JSON.stringify(syncObjectName)} is not valid: ${problem}`);
  }
}

/** Why `name` cannot be a SyncObject name, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (name.length > MAX_NAME_LENGTH) {
    return `must be no more than ${MAX_NAME_LENGTH} characters, has ${name.length}`;
  }
  if (!DNS_SUBDOMAIN.test(name)) {
    return "must be a lowercase RFC 1123 subdomain (lowercase letters, digits, '-' and '.', starting and ending with a letter or digit)";
  }
  return undefined;
}

/** `<prefix>-<uid>`; throws {@link SyncObjectNameError} when that is no valid object name. */
export function syncObjectName(prefix: string, uid: string): string {
  const name = `${prefix}-${uid}`;
  if (prefix === '') throw new SyncObjectNameError(name, 'the prefix is empty');
  if (uid === '') throw new SyncObjectNameError(name, 'the object has no UID');
  const problem = nameProblem(name);
  if (problem !== undefined) throw new SyncObjectNameError(name, problem);
  return name;
}

/** `<prefix>-<uid>` without validation (for comparing with an existing name). */
export function expectedSyncObjectName(prefix: string, uid: string): string {
  return `${prefix}-${uid}`;
}

/** metav1.Time as the API server writes it: RFC 3339 in UTC, whole seconds. */
export { formatTime as metaTime } from '@landscape/apimachinery';
