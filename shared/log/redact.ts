/**
 * Redaction of secret values in log fields (pure).
 *
 * Secrets (kubeconfigs in Targets and Secrets, tokens, passwords) are never logged. A field is
 * redacted when its key names a secret (kubeconfig, token, password, secret, credential, private
 * key, authorization, ...), unless the key only names or points at one (`secretRef`,
 * `kubeConfigSecretName`, `tokenFile`); the `data`/`stringData` of anything that looks like a
 * Secret object is redacted, and so is a string value that looks like a kubeconfig, a PEM
 * private key or a JWT, whatever its key.
 */

export const REDACTED = '[REDACTED]';

/** Key fragments (lowercase, without '-', '_' and '.') that mark a value as secret. */
export const SECRET_KEY_FRAGMENTS = [
  'kubeconfig',
  'token',
  'password',
  'passwd',
  'secret',
  'credential',
  'privatekey',
  'clientkey',
  'apikey',
  'authorization',
  'bearer',
  'cookie',
] as const;

/** Key endings that name or point at a secret rather than hold it. */
export const REFERENCE_KEY_SUFFIXES = ['name', 'names', 'ref', 'namespace', 'file', 'path'] as const;

const MAX_DEPTH = 8;

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_.]/g, '');
}

/** Whether the value under `key` must not be printed. */
export function isSecretKey(key: string): boolean {
  const k = normalizeKey(key);
  if (!SECRET_KEY_FRAGMENTS.some((f) => k.includes(f))) return false;
  return !REFERENCE_KEY_SUFFIXES.some((s) => k.endsWith(s));
}

const PEM_PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/;
const KUBECONFIG_MARKERS = [/(^|\n)\s*clusters\s*:/, /(^|\n)\s*users\s*:/];
const CREDENTIAL_LINE = /(^|\n)\s*(token|client-key-data|password)\s*:/;

/** Whether a string value looks like a secret regardless of its key. */
export function looksSecret(value: string): boolean {
  if (PEM_PRIVATE_KEY.test(value) || JWT.test(value)) return true;
  return KUBECONFIG_MARKERS.every((m) => m.test(value)) || CREDENTIAL_LINE.test(value);
}

function isSecretObject(value: Record<string, unknown>): boolean {
  return value['kind'] === 'Secret';
}

function redactObject(value: Record<string, unknown>, depth: number, seen: WeakSet<object>): unknown {
  const secretObject = isSecretObject(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const hide = isSecretKey(k) || (secretObject && (k === 'data' || k === 'stringData'));
    out[k] = hide && v !== undefined && v !== null && v !== '' ? REDACTED : redactValue(v, depth + 1, seen);
  }
  return out;
}

/**
 * A copy of `value` that is safe to print: secret fields replaced by {@link REDACTED}, Errors
 * turned into their message (as zap prints them), cycles cut. The input is not mutated.
 */
export function redactValue(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return looksSecret(value) ? REDACTED : value;
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return redactValue(value.message, depth, seen);
  if (value instanceof Date) return value.toISOString();
  return redactContainer(value, depth, seen);
}

function redactContainer(value: object, depth: number, seen: WeakSet<object>): unknown {
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  seen.add(value);
  const out = Array.isArray(value)
    ? value.map((v) => redactValue(v, depth + 1, seen))
    : redactObject(value as Record<string, unknown>, depth, seen);
  seen.delete(value);
  return out;
}

/** Redacts a flat field map (the top level of a log line). */
export function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  return redactObject(fields, 0, new WeakSet()) as Record<string, unknown>;
}
