/**
 * Everything the embedded landscape reads from the `knative/` folders, in one pass, with every
 * problem of every file: Knative Services (the functions), Brokers and Triggers (the routing),
 * ApiServerSources and PingSources (the event sources), and the plain Kubernetes objects an admin
 * would apply with them (Namespaces, ServiceAccounts, RBAC, ConfigMaps, CRDs), which the
 * landscape creates in the main cluster.
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadManifests, yamlFiles, type BrokerConfig, type Trigger } from '../../triggers/broker/index.js';
import {
  ManifestError as SourceManifestError,
  sourceSpecsFromYaml,
} from '../../triggers/apiserver-source/index.js';
import type { SourceSpec } from '../../triggers/apiserver-source/index.js';
import { parseServices, type FunctionService } from '../activator/services.js';

/** API groups of Knative's own kinds: read here, never created in the embedded cluster. */
export const KNATIVE_GROUPS = [
  'serving.knative.dev',
  'eventing.knative.dev',
  'sources.knative.dev',
  'messaging.knative.dev',
] as const;

/** The annotation a PingSource carries for its schedule in the embedded landscape. */
export const EMBEDDED_SCHEDULE_ANNOTATION = 'landscape.dev/embedded-schedule';

export interface KnativeSet {
  services: FunctionService[];
  triggers: Trigger[];
  brokers: BrokerConfig[];
  apiServerSources: SourceSpec[];
  /** PingSource manifests as read (schedules resolved by the runtime). */
  pingSources: Record<string, unknown>[];
  /** Other Kubernetes objects, in file order. */
  objects: Record<string, unknown>[];
  problems: string[];
}

function groupOf(apiVersion: unknown): string {
  return typeof apiVersion === 'string' && apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
}

export function isKnativeKind(doc: { apiVersion?: unknown }): boolean {
  return (KNATIVE_GROUPS as readonly string[]).includes(groupOf(doc.apiVersion));
}

/** A PingSource with the embedded schedule, when it has one (pure; the input is not changed). */
export function withEmbeddedSchedule(doc: Record<string, unknown>): Record<string, unknown> {
  const meta = doc.metadata as { annotations?: Record<string, unknown> } | undefined;
  const schedule = meta?.annotations?.[EMBEDDED_SCHEDULE_ANNOTATION];
  if (typeof schedule !== 'string') return doc;
  return { ...doc, spec: { ...(doc.spec as object), schedule } };
}

/** The YAML mappings of a text (documents with errors are reported by the parsers below). */
function mappings(text: string): Record<string, unknown>[] {
  return parseAllDocuments(text)
    .filter((doc) => doc.errors.length === 0)
    .map((doc): unknown => doc.toJS())
    .filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v));
}

function readDocs(text: string, file: string, out: KnativeSet): void {
  for (const o of mappings(text)) {
    if (o.kind === 'PingSource' && groupOf(o.apiVersion) === 'sources.knative.dev') out.pingSources.push(o);
    else if (!isKnativeKind(o) && typeof o.kind === 'string') out.objects.push(o);
  }
  const services = parseServices(text, file);
  out.services.push(...services.services);
  out.problems.push(...services.problems);
  try {
    out.apiServerSources.push(...sourceSpecsFromYaml(text, file));
  } catch (err) {
    if (!(err instanceof SourceManifestError)) throw err;
    out.problems.push(err.message);
  }
}

function duplicateServices(services: readonly FunctionService[]): string[] {
  const seen = new Map<string, string | undefined>();
  const problems: string[] = [];
  for (const s of services) {
    const key = `${s.namespace}/${s.name}`;
    if (seen.has(key)) problems.push(`${s.file}: Service ${key}: also defined in ${seen.get(key)}`);
    else seen.set(key, s.file);
  }
  return problems;
}

/** Reads every folder; files are named relative to the working directory. */
export async function loadKnative(dirs: readonly string[]): Promise<KnativeSet> {
  const out: KnativeSet = {
    services: [],
    triggers: [],
    brokers: [],
    apiServerSources: [],
    pingSources: [],
    objects: [],
    problems: [],
  };
  for (const dir of dirs) {
    let files: string[];
    try {
      files = await yamlFiles(dir);
    } catch (err) {
      out.problems.push(`${dir}: ${(err as Error).message}`);
      continue;
    }
    for (const file of files) readDocs(await readFile(file, 'utf8'), relative(process.cwd(), file), out);
    const routing = await loadManifests(dir);
    out.triggers.push(...routing.triggers);
    out.brokers.push(...routing.brokers);
    out.problems.push(...routing.problems.map((p) => `${dir}/${p}`));
  }
  out.problems.push(...duplicateServices(out.services));
  return out;
}
