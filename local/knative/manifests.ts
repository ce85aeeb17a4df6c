/**
 * Everything the embedded landscape reads from the `knative/` folders, in one pass, with every
 * problem of every file: Knative Services (the functions), Brokers and Triggers (the routing),
 * ApiServerSources and PingSources (the event sources), SinkBindings (applied to the Services
 * they select, as Knative's binding webhook does: ./sinkbinding.ts), and the plain Kubernetes
 * objects an admin would apply with them (Namespaces, ServiceAccounts, RBAC, ConfigMaps, CRDs),
 * which the landscape creates in the main cluster.
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isRecord } from '@landscape/apimachinery';
import { loadManifests, yamlFiles, type BrokerConfig, type Trigger } from '../../triggers/broker/index.js';
import {
  ManifestError as SourceManifestError,
  sourceSpecsFromYaml,
} from '../../triggers/apiserver-source/index.js';
import type { SourceSpec } from '../../triggers/apiserver-source/index.js';
import { parseServices, type FunctionService } from '../activator/services.js';
import { applySinkBindings, parseSinkBinding, type SinkBinding } from './sinkbinding.js';

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
  /** SinkBinding manifests as read (already applied to `services`). */
  sinkBindings: Record<string, unknown>[];
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
    .filter(isRecord);
}

/** `namespace/name` → metadata.labels of every Knative Service read (what SinkBindings select on). */
type ServiceLabels = Map<string, Record<string, string>>;

function serviceLabels(o: Record<string, unknown>, labels: ServiceLabels): void {
  const meta = (o.metadata ?? {}) as { name?: string; namespace?: string; labels?: Record<string, string> };
  labels.set(`${meta.namespace ?? 'default'}/${meta.name ?? ''}`, meta.labels ?? {});
}

function sortDoc(o: Record<string, unknown>, out: KnativeSet, labels: ServiceLabels): void {
  const sources = groupOf(o.apiVersion) === 'sources.knative.dev';
  if (o.kind === 'PingSource' && sources) out.pingSources.push(o);
  else if (o.kind === 'SinkBinding' && sources) out.sinkBindings.push(o);
  else if (o.kind === 'Service' && o.apiVersion === 'serving.knative.dev/v1') serviceLabels(o, labels);
  else if (!isKnativeKind(o) && typeof o.kind === 'string') out.objects.push(o);
}

function readDocs(text: string, file: string, out: KnativeSet, labels: ServiceLabels): void {
  for (const o of mappings(text)) sortDoc(o, out, labels);
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

/** The SinkBindings read, applied to the Services they select (Knative's binding webhook). */
function bindSinks(out: KnativeSet, labels: ServiceLabels): void {
  const brokers = new Set(out.brokers.map((b) => `${b.namespace}/${b.name}`));
  const bindings: SinkBinding[] = [];
  for (const doc of out.sinkBindings) {
    const r = parseSinkBinding(doc, brokers);
    out.problems.push(...r.problems);
    if (r.binding) bindings.push(r.binding);
  }
  const bound = applySinkBindings(out.services, (s) => labels.get(`${s.namespace}/${s.name}`), bindings);
  out.services = bound.services;
  out.problems.push(...bound.problems);
}

/** Reads every folder; files are named relative to the working directory. */
export async function loadKnative(dirs: readonly string[]): Promise<KnativeSet> {
  const out: KnativeSet = {
    services: [],
    triggers: [],
    brokers: [],
    apiServerSources: [],
    pingSources: [],
    sinkBindings: [],
    objects: [],
    problems: [],
  };
  const labels: ServiceLabels = new Map();
  for (const dir of dirs) {
    let files: string[];
    try {
      files = await yamlFiles(dir);
    } catch (err) {
      out.problems.push(`${dir}: ${(err as Error).message}`);
      continue;
    }
    for (const file of files)
      readDocs(await readFile(file, 'utf8'), relative(process.cwd(), file), out, labels);
    const routing = await loadManifests(dir);
    out.triggers.push(...routing.triggers);
    out.brokers.push(...routing.brokers);
    out.problems.push(...routing.problems.map((p) => `${dir}/${p}`));
  }
  out.problems.push(...duplicateServices(out.services));
  bindSinks(out, labels);
  return out;
}
