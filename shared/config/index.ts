/**
 * Function configuration (DESIGN "Configuration"), pure: one YAML file (CONFIG_FILE) whose keys a
 * zod schema checks, single keys overridden by environment variables, every problem listed as
 * `<key path>: <problem>`. Each function declares its schema and its overrides; this does the rest.
 *
 *   const OVERRIDES = { REDIS_URL: { key: 'redisUrl' }, BATCH: { key: 'batchSize', kind: 'number' } };
 *   const r = loadConfigWith(Schema, OVERRIDES, fileText, process.env);
 *   if (!r.ok) log.error('invalid config', { problems: r.problems });
 */
import { parse as parseYaml } from 'yaml';
import * as z from './zod.js';
import { GO_DURATION_FORMAT, parseGoDuration } from '@landscape/apimachinery';
import { LOG_LEVELS } from '../log/index.js';

/** How an environment value becomes a config value; a value that does not convert is kept (the schema then names it). */
export type EnvKind = 'string' | 'number' | 'boolean' | 'list';

export interface EnvOverride {
  /** The config key the variable sets. */
  key: string;
  /** Default `string`. `list` is comma-separated. */
  kind?: EnvKind;
}

export type ConfigResult<T> = { ok: true; config: T } | { ok: false; problems: string[] };

/** Converts one environment value by its kind. */
export function envValue(kind: EnvKind, raw: string): unknown {
  switch (kind) {
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    default:
      return raw;
  }
}

/** The file's mapping ({} when absent or empty); a problem when it is not YAML or not a mapping. */
export function parseConfigFile(text: string | undefined, problems: string[]): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  try {
    const doc: unknown = parseYaml(text);
    if (doc === null || doc === undefined) return {};
    if (typeof doc === 'object' && !Array.isArray(doc)) return doc as Record<string, unknown>;
    problems.push('config file: the document must be a mapping');
  } catch (err) {
    problems.push(`config file: not YAML: ${(err as Error).message}`);
  }
  return {};
}

/** `<path>: <message>` for each zod issue (`(root)` for the document itself). */
export function issueLines(error: z.ZodError): string[] {
  return error.issues.map(
    (issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`,
  );
}

/** File text (may be absent) + environment overrides, checked by the schema; every problem listed. */
export function loadConfigWith<S extends z.ZodType>(
  schema: S,
  overrides: Readonly<Record<string, EnvOverride>>,
  fileText: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult<z.output<S>> {
  const problems: string[] = [];
  const raw = { ...parseConfigFile(fileText, problems) };
  for (const [name, o] of Object.entries(overrides)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[o.key] = envValue(o.kind ?? 'string', value);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) problems.push(...issueLines(parsed.error));
  if (problems.length > 0 || !parsed.success) return { ok: false, problems };
  return { ok: true, config: parsed.data };
}

/** A function's `loadConfig`: `loadConfigWith` with its schema and overrides. */
export function configLoader<S extends z.ZodType>(
  schema: S,
  overrides: Readonly<Record<string, EnvOverride>>,
): (
  fileText: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
) => ConfigResult<z.output<S>> {
  return (fileText, env) => loadConfigWith(schema, overrides, fileText, env);
}

/** The key every function's config has: `logLevel` (default info), overridden by LOG_LEVEL. */
const LOG_LEVEL_SHAPE = { logLevel: z.enum(LOG_LEVELS).default('info') };

/** A function's config schema: its own keys and `logLevel`; strict (an unknown key is a problem). */
export function functionConfigSchema<T extends z.core.$ZodLooseShape>(
  shape: T,
): z.ZodObject<T & typeof LOG_LEVEL_SHAPE, z.core.$strict> {
  return z.strictObject({ ...shape, ...LOG_LEVEL_SHAPE });
}

/** A function's environment overrides: LOG_LEVEL and its own. */
export function withLogLevel<O extends Record<string, EnvOverride>>(
  overrides: O,
): O & { readonly LOG_LEVEL: { readonly key: 'logLevel' } } {
  return { LOG_LEVEL: { key: 'logLevel' }, ...overrides };
}

/** The text of `CONFIG_FILE`, or undefined when the variable is not set (a read error is thrown). */
export async function readConfigFile(
  env: Readonly<Record<string, string | undefined>>,
  read: (path: string) => Promise<string>,
): Promise<{ path?: string; text?: string }> {
  const path = env['CONFIG_FILE'];
  if (!path) return {};
  return { path, text: await read(path) };
}

/**
 * A duration key, the one duration format of every config file: a Go duration (`500ms`, `1m30s`,
 * `0s`; see parseGoDuration) or a whole number of milliseconds; whole milliseconds, not negative.
 */
export const durationSchema = z.union([z.number(), z.string()]).transform((v, ctx) => {
  try {
    const ms = typeof v === 'number' ? v : parseGoDuration(v.trim());
    if (typeof v === 'number' && !Number.isInteger(v)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be ${GO_DURATION_FORMAT} or whole milliseconds, got ${v}`,
      });
    } else if (ms < 0)
      ctx.addIssue({ code: 'custom', message: `must not be negative, got ${JSON.stringify(v)}` });
    else return Math.round(ms);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `${(err as Error).message}; want ${GO_DURATION_FORMAT}` });
  }
  return z.NEVER;
});
