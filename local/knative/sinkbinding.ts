/**
 * Knative's SinkBinding (sources.knative.dev/v1) in the embedded landscape (pure): Knative Serving
 * sets no K_SINK; a SinkBinding puts it into the containers of its subjects. Imitates
 * knative/eventing:
 * - pkg/apis/sources/v1/sinkbinding_lifecycle.go `Do`: first `Undo` (every K_SINK, K_CE_OVERRIDES
 *   and K_CA_CERTS entry is taken out), then K_SINK = the resolved sink URL and K_CE_OVERRIDES =
 *   the JSON of `spec.ceOverrides` ('' without) are appended; a sink that does not resolve
 *   binds nothing;
 * - pkg/apis/sources/v1/sinkbinding_validation.go: `spec.subject.namespace`, when set, must be the
 *   binding's own; the subject (knative.dev/pkg tracker.Reference) has apiVersion and kind and
 *   either a name or a label selector, not both — matched against the subjects' own
 *   `metadata.labels`, in the binding's namespace only.
 * The sink resolves as Knative's URI resolver does for what knative/ uses: a Broker ref to the
 * in-cluster broker ingress of the MT channel-based Broker (its `status.address.url`; the
 * activator's env.ts rewrites it to the local ingress), an absolute `uri` as it is. Only Knative
 * Services are subjects here (the embedded landscape runs nothing else); a Service two bindings
 * select is a problem (on a cluster they would overwrite each other's K_SINK).
 */
import { IN_CLUSTER_BROKER_HOST } from '../activator/env.js';
import type { EnvSource, FunctionService } from '../activator/services.js';
import { asRecord, matchesLabelSelector, type LabelSelector } from '@landscape/apimachinery';

export const BINDING_ENV = ['K_SINK', 'K_CE_OVERRIDES', 'K_CA_CERTS'] as const;
const SERVICE_API = 'serving.knative.dev/v1';

export interface SinkBinding {
  name: string;
  namespace: string;
  subject: { apiVersion: string; kind: string; name?: string; selector?: LabelSelector };
  /** The resolved sink URL. */
  sinkUri: string;
  ceOverrides: string;
}

/** The Brokers that exist, as `namespace/name`. */
export type BrokerKeys = ReadonlySet<string>;

type Json = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The in-cluster address of an MT channel-based Broker (its status.address.url). */
export function brokerAddress(namespace: string, name: string): string {
  return `http://${IN_CLUSTER_BROKER_HOST}/${namespace}/${name}`;
}

function resolveSink(sink: Json, namespace: string, brokers: BrokerKeys): string | string[] {
  const uri = str(sink['uri']);
  const ref = asRecord(sink['ref']);
  if (Object.keys(ref).length === 0) {
    if (uri && /^[a-z][a-z0-9+.-]*:\/\/[^/]/i.test(uri)) return uri;
    return ['spec.sink: needs a ref or an absolute uri'];
  }
  const ns = str(ref['namespace']) ?? namespace;
  const name = str(ref['name']) ?? '';
  if (ref['kind'] !== 'Broker' || ref['apiVersion'] !== 'eventing.knative.dev/v1')
    return ['spec.sink.ref: the embedded landscape resolves Broker refs (eventing.knative.dev/v1) only'];
  if (!brokers.has(`${ns}/${name}`)) return [`spec.sink.ref: Broker ${ns}/${name} is not in the manifests`];
  return uri ? new URL(uri, `${brokerAddress(ns, name)}/`).toString() : brokerAddress(ns, name);
}

function subjectOf(spec: Json, namespace: string): SinkBinding['subject'] | string[] {
  const s = asRecord(spec['subject']);
  const apiVersion = str(s['apiVersion']);
  const kind = str(s['kind']);
  const name = str(s['name']);
  const selector = s['selector'] === undefined ? undefined : (asRecord(s['selector']) as LabelSelector);
  const problems: string[] = [];
  if (!apiVersion || !kind) problems.push('spec.subject: apiVersion and kind are required');
  if ((name === undefined) === (selector === undefined))
    problems.push('spec.subject: exactly one of name and selector');
  const subjectNs = str(s['namespace']);
  if (subjectNs !== undefined && subjectNs !== namespace)
    problems.push(`spec.subject.namespace: must be the binding's own (${namespace})`);
  if (problems.length > 0) return problems;
  return {
    apiVersion: apiVersion!,
    kind: kind!,
    ...(name ? { name } : {}),
    ...(selector ? { selector } : {}),
  };
}

/** One SinkBinding document → the binding, or its problems. */
export function parseSinkBinding(
  doc: Json,
  brokers: BrokerKeys,
): { binding?: SinkBinding; problems: string[] } {
  const meta = asRecord(doc['metadata']);
  const name = str(meta['name']) ?? '';
  const namespace = str(meta['namespace']) ?? 'default';
  const where = `SinkBinding ${namespace}/${name}`;
  const spec = asRecord(doc['spec']);
  const subject = subjectOf(spec, namespace);
  const sink = resolveSink(asRecord(spec['sink']), namespace, brokers);
  const problems = [...(Array.isArray(subject) ? subject : []), ...(Array.isArray(sink) ? sink : [])];
  if (!name) problems.push('metadata.name is required');
  if (problems.length > 0 || Array.isArray(subject) || Array.isArray(sink))
    return { problems: problems.map((p) => `${where}: ${p}`) };
  const overrides = spec['ceOverrides'];
  return {
    binding: {
      name,
      namespace,
      subject,
      sinkUri: sink,
      ceOverrides: overrides === undefined ? '' : JSON.stringify(overrides),
    },
    problems: [],
  };
}

/** Whether the binding selects the Knative Service (with its metadata.labels). */
export function selects(
  binding: SinkBinding,
  service: Pick<FunctionService, 'name' | 'namespace'>,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const s = binding.subject;
  if (s.apiVersion !== SERVICE_API || s.kind !== 'Service' || service.namespace !== binding.namespace)
    return false;
  return s.name !== undefined ? s.name === service.name : matchesLabelSelector(s.selector, labels ?? {});
}

/** `Undo`: the env without what a SinkBinding puts there. */
export function undo(env: FunctionService['env']): FunctionService['env'] {
  return env.filter((e) => !(BINDING_ENV as readonly string[]).includes(e.name));
}

/** `Do`: undo, then K_SINK and K_CE_OVERRIDES appended. */
export function bind(service: FunctionService, binding: SinkBinding): FunctionService {
  const value = (v: string): EnvSource => ({ kind: 'value', value: v });
  return {
    ...service,
    env: [
      ...undo(service.env),
      { name: 'K_SINK', from: value(binding.sinkUri) },
      { name: 'K_CE_OVERRIDES', from: value(binding.ceOverrides) },
    ],
  };
}

/** Every Service as its bindings leave it, and the problems (a Service selected twice). */
export function applySinkBindings(
  services: readonly FunctionService[],
  labelsOf: (service: FunctionService) => Readonly<Record<string, string>> | undefined,
  bindings: readonly SinkBinding[],
): { services: FunctionService[]; problems: string[] } {
  const problems: string[] = [];
  const out = services.map((service) => {
    const mine = bindings.filter((b) => selects(b, service, labelsOf(service)));
    if (mine.length > 1)
      problems.push(
        `Service ${service.namespace}/${service.name}: selected by several SinkBindings (${mine.map((b) => b.name).join(', ')})`,
      );
    return mine.length === 1 ? bind(service, mine[0]) : service;
  });
  return { services: out, problems };
}
