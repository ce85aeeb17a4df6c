/**
 * Reads Trigger and Broker manifests from a directory tree (every *.yaml / *.yml, multi-document)
 * and reports every problem with its file. Documents of other kinds are skipped.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type * as z from '../../shared/config/zod.js';
import { brokerSchema, toTrigger, triggerKey, triggerSchema } from './trigger.js';
import type { BrokerConfig, Trigger } from './trigger.js';

export interface ManifestSet {
  triggers: Trigger[];
  brokers: BrokerConfig[];
  /** `<file>: <document>: <what>: <problem>`, one per problem. */
  problems: string[];
}

/** The manifests are invalid; `problems` lists every one. */
export class ManifestError extends Error {
  override readonly name = 'ManifestError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid Knative manifests:\n  ${problems.join('\n  ')}`);
  }
}

function issues(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`);
}

function describe(doc: Record<string, unknown>, index: number): string {
  const meta = (doc.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  const name = typeof meta.name === 'string' ? meta.name : `document ${index + 1}`;
  const ns = typeof meta.namespace === 'string' ? `${meta.namespace}/` : '';
  return `${String(doc.kind)} ${ns}${name}`;
}

function addTrigger(out: ManifestSet, doc: Record<string, unknown>, label: string, file: string): void {
  const parsed = triggerSchema.safeParse(doc);
  if (parsed.success) out.triggers.push(toTrigger(parsed.data, file));
  else out.problems.push(...issues(parsed.error).map((p) => `${label}: ${p}`));
}

function addBroker(out: ManifestSet, doc: Record<string, unknown>, label: string, file: string): void {
  const parsed = brokerSchema.safeParse(doc);
  if (!parsed.success) {
    out.problems.push(...issues(parsed.error).map((p) => `${label}: ${p}`));
    return;
  }
  const { metadata, spec } = parsed.data;
  out.brokers.push({
    name: metadata.name,
    namespace: metadata.namespace ?? 'default',
    ...(spec?.delivery !== undefined ? { delivery: spec.delivery } : {}),
    file,
  });
}

/** Parses one file's text; `file` only labels the problems. */
export function parseManifests(text: string, file: string): ManifestSet {
  const out: ManifestSet = { triggers: [], brokers: [], problems: [] };
  parseAllDocuments(text).forEach((document, index) => {
    if (document.errors.length > 0) {
      for (const e of document.errors) out.problems.push(`${file}: document ${index + 1}: ${e.message}`);
      return;
    }
    const value: unknown = document.toJS();
    if (typeof value !== 'object' || value === null) return;
    const doc = value as Record<string, unknown>;
    const label = `${file}: ${describe(doc, index)}`;
    if (doc.kind === 'Trigger') addTrigger(out, doc, label, file);
    else if (doc.kind === 'Broker' && doc.apiVersion === 'eventing.knative.dev/v1')
      addBroker(out, doc, label, file);
  });
  return out;
}

/** Every `*.yaml`/`*.yml` file under `dir` (recursively), sorted. */
export async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

function duplicates(triggers: readonly Trigger[]): string[] {
  const seen = new Map<string, string | undefined>();
  const problems: string[] = [];
  for (const t of triggers) {
    const key = triggerKey(t);
    if (seen.has(key)) problems.push(`${t.file}: Trigger ${key}: also defined in ${seen.get(key)}`);
    else seen.set(key, t.file);
  }
  return problems;
}

/** Every Trigger and Broker under `dir` (files named relative to it), with every problem. */
export async function loadManifests(dir: string): Promise<ManifestSet> {
  const out: ManifestSet = { triggers: [], brokers: [], problems: [] };
  for (const path of await yamlFiles(dir)) {
    const set = parseManifests(await readFile(path, 'utf8'), relative(dir, path) || path);
    out.triggers.push(...set.triggers);
    out.brokers.push(...set.brokers);
    out.problems.push(...set.problems);
  }
  out.problems.push(...duplicates(out.triggers));
  return out;
}

/** `loadManifests`, throwing `ManifestError` when there is any problem. */
export async function loadManifestsOrThrow(dir: string): Promise<ManifestSet> {
  const set = await loadManifests(dir);
  if (set.problems.length > 0) throw new ManifestError(set.problems);
  return set;
}
