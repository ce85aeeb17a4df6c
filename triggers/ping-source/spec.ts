/**
 * PingSource manifests (sources.knative.dev/v1) → what the ping source runs (pure).
 *
 * Knative semantics: `schedule` is a 5-field cron (robfig/cron: day-of-month OR day-of-week,
 * `@hourly`-style descriptors); `timezone` an IANA zone (default UTC); `data` (text) or
 * `dataBase64` (bytes), not both; `contentType` of the data; `sink` a URI or a ref (resolved by
 * the caller, with `uri` then a path relative to it). The embedded landscape also accepts a
 * 6-field schedule whose first field is seconds (`allowSeconds`). Every problem is listed.
 */
import { Cron } from 'croner';
import { parseAllDocuments } from 'yaml';
import * as z from '../../shared/config/zod.js';

export const PINGSOURCE_API_VERSION = 'sources.knative.dev/v1';

const SinkRefSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().min(1),
  name: z.string().min(1),
  namespace: z.string().optional(),
});
export type SinkRef = z.infer<typeof SinkRefSchema>;

export const PingSourceSchema = z.object({
  apiVersion: z.literal(PINGSOURCE_API_VERSION),
  kind: z.literal('PingSource'),
  metadata: z.object({ name: z.string().min(1), namespace: z.string().min(1).default('default') }).loose(),
  spec: z.object({
    schedule: z.string().min(1),
    timezone: z.string().min(1).optional(),
    contentType: z.string().min(1).optional(),
    data: z.string().optional(),
    dataBase64: z.string().optional(),
    sink: z.object({ uri: z.string().min(1).optional(), ref: SinkRefSchema.optional() }),
    ceOverrides: z.object({ extensions: z.record(z.string(), z.string()).optional() }).optional(),
  }),
});
export type PingSourceManifest = z.infer<typeof PingSourceSchema>;

/** A PingSource ready to run. */
export interface PingSourceSpec {
  namespace: string;
  name: string;
  schedule: string;
  /** IANA zone; undefined = UTC. */
  timezone?: string;
  contentType?: string;
  /** The event's data: text from `data`, bytes from `dataBase64`, none when neither is set. */
  data?: string | Uint8Array;
  sink: string;
  /** `ceOverrides.extensions`. */
  extensions: Record<string, string>;
}

export interface ParseOptions {
  /** Accept 6-field (seconds) schedules, as the embedded landscape does. */
  allowSeconds?: boolean;
  /** The URL of a sink ref (Service, Broker, ...), or undefined when it cannot be resolved. */
  resolveRef?: (ref: SinkRef, namespace: string) => string | undefined;
}

/** The croner mode for a schedule. */
export function cronMode(allowSeconds: boolean): '5-part' | '5-or-6-parts' {
  return allowSeconds ? '5-or-6-parts' : '5-part';
}

/** A problem with the schedule or timezone, or undefined when croner accepts them. */
export function scheduleProblem(
  schedule: string,
  timezone: string | undefined,
  allowSeconds: boolean,
): string | undefined {
  const fields = schedule.trim().split(/\s+/);
  if (!schedule.trim().startsWith('@') && fields.length === 6 && !allowSeconds) {
    return `schedule "${schedule}": 6-field (seconds) cron is only accepted in the embedded landscape`;
  }
  try {
    new Cron(schedule, {
      paused: true,
      mode: cronMode(allowSeconds),
      ...(timezone ? { timezone } : {}),
    }).stop();
    return undefined;
  } catch (err) {
    return `schedule "${schedule}"${timezone ? ` (timezone ${timezone})` : ''}: ${(err as Error).message}`;
  }
}

function timezoneProblem(tz: string | undefined): string | undefined {
  if (tz === undefined) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return undefined;
  } catch {
    return `timezone "${tz}" is not an IANA time zone`;
  }
}

function decodeData(spec: PingSourceManifest['spec'], problems: string[]): string | Uint8Array | undefined {
  if (spec.data !== undefined && spec.dataBase64 !== undefined) {
    problems.push('data and dataBase64 are mutually exclusive');
    return undefined;
  }
  if (spec.dataBase64 === undefined) return spec.data;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(spec.dataBase64) || spec.dataBase64.length % 4 !== 0) {
    problems.push('dataBase64 is not base64');
    return undefined;
  }
  return new Uint8Array(Buffer.from(spec.dataBase64, 'base64'));
}

function joinUri(base: string, uri: string | undefined): string {
  if (!uri) return base;
  return new URL(uri, base.endsWith('/') ? base : `${base}/`).toString();
}

function resolveSink(m: PingSourceManifest, opts: ParseOptions, problems: string[]): string {
  const { uri, ref } = m.spec.sink;
  if (ref) {
    const base = opts.resolveRef?.(ref, ref.namespace ?? m.metadata.namespace);
    if (base === undefined) problems.push(`sink.ref ${ref.kind}/${ref.name} cannot be resolved`);
    return base === undefined ? '' : joinUri(base, uri);
  }
  if (!uri) {
    problems.push('sink needs uri or ref');
    return '';
  }
  if (!URL.canParse(uri)) problems.push(`sink.uri "${uri}" is not an absolute URL`);
  return uri;
}

/** Checks one manifest; `problems` lists everything wrong (prefixed by `<ns>/<name>`). */
export function toSpec(
  input: unknown,
  opts: ParseOptions = {},
): { spec?: PingSourceSpec; problems: string[] } {
  const parsed = PingSourceSchema.safeParse(input);
  if (!parsed.success) {
    return { problems: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`) };
  }
  const m = parsed.data;
  const problems: string[] = [];
  const schedule = scheduleProblems(m.spec, opts.allowSeconds ?? false);
  problems.push(...schedule);
  const data = decodeData(m.spec, problems);
  const sink = resolveSink(m, opts, problems);
  const label = `${m.metadata.namespace}/${m.metadata.name}`;
  if (problems.length > 0) return { problems: problems.map((p) => `${label}: ${p}`) };
  return { problems: [], spec: buildSpec(m, data, sink) };
}

function scheduleProblems(spec: PingSourceManifest['spec'], allowSeconds: boolean): string[] {
  const tz = timezoneProblem(spec.timezone);
  if (tz) return [tz];
  const sched = scheduleProblem(spec.schedule, spec.timezone, allowSeconds);
  return sched ? [sched] : [];
}

function buildSpec(
  m: PingSourceManifest,
  data: string | Uint8Array | undefined,
  sink: string,
): PingSourceSpec {
  const { spec } = m;
  return {
    namespace: m.metadata.namespace,
    name: m.metadata.name,
    schedule: spec.schedule,
    ...(spec.timezone ? { timezone: spec.timezone } : {}),
    ...(spec.contentType ? { contentType: spec.contentType } : {}),
    ...(data !== undefined ? { data } : {}),
    sink,
    extensions: spec.ceOverrides?.extensions ?? {},
  };
}

/** Every PingSource in a (multi-document) YAML text; other kinds are skipped. */
export function parsePingSources(
  text: string,
  opts: ParseOptions = {},
): { sources: PingSourceSpec[]; problems: string[] } {
  const sources: PingSourceSpec[] = [];
  const problems: string[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) {
      problems.push(...doc.errors.map((e) => `YAML: ${e.message}`));
      continue;
    }
    const value: unknown = doc.toJS();
    if (typeof value !== 'object' || value === null || (value as { kind?: unknown }).kind !== 'PingSource')
      continue;
    const r = toSpec(value, opts);
    problems.push(...r.problems);
    if (r.spec) sources.push(r.spec);
  }
  return { sources, problems };
}
