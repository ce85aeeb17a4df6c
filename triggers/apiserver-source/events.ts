/**
 * CloudEvents as Knative's ApiServerSource builds them (knative.dev/eventing
 * pkg/adapter/apiserver/events), and nothing else. Pure: id and time come in.
 *
 * - subject: `/apis/<apiVersion>/namespaces/<namespace>/<guessed plural>/<name>`: always `/apis/`
 *   (also for core kinds: `/apis/v1/...`), the namespace segment even for cluster-scoped kinds
 *   (empty: `/apis/v1/namespaces//nodes/n`), and the plural guessed from the kind as apimachinery's
 *   UnsafeGuessKindToResource does (lower case; `…s` → `…ses`, `…y` → `…ies`, `…endpoints` kept).
 * - extensions: `kind`, `apiversion`, `name`, `namespace` (empty for cluster-scoped objects).
 * - Reference-mode data: an ObjectReference in Go's field order, empty namespace left out.
 * - `ceOverrides.extensions` are set last and win.
 */
import type { ChangeAction, EventMode, OutboundEvent, WatchedObject } from './types.js';
import { ApiServerEventTypes } from './types.js';

export const SPEC_VERSION = '1.0';
export const DATA_CONTENT_TYPE = 'application/json';

/** apimachinery's meta.UnsafeGuessKindToResource (the plural Knative puts in the subject). */
export function guessPlural(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular === '') return '';
  if (singular.endsWith('endpoints')) return singular;
  if (singular.endsWith('s')) return `${singular}es`;
  if (singular.endsWith('y')) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/** Knative's createSelfLink. */
export function subjectFor(ref: {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}): string {
  let version = ref.apiVersion;
  if (version.includes('.') && !version.includes('/')) version = `${version}/versionUnknown`;
  return `/apis/${version}/namespaces/${ref.namespace}/${guessPlural(ref.kind)}/${ref.name}`;
}

interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
}

function identity(object: WatchedObject, fallback: { apiVersion: string; kind: string }): ObjectIdentity {
  return {
    apiVersion: object.apiVersion ?? fallback.apiVersion,
    kind: object.kind ?? fallback.kind,
    name: object.metadata?.name ?? '',
    namespace: object.metadata?.namespace ?? '',
  };
}

/** Reference-mode data: corev1.ObjectReference as Go marshals it (kind, namespace, name, apiVersion). */
export function referenceData(id: ObjectIdentity): Record<string, string> {
  const out: Record<string, string> = { kind: id.kind };
  if (id.namespace !== '') out.namespace = id.namespace;
  out.name = id.name;
  out.apiVersion = id.apiVersion;
  return out;
}

export interface EventContext {
  /** The API server URL (the `source` attribute). */
  source: string;
  mode: EventMode;
  /** `ceOverrides.extensions`. */
  extensions?: Readonly<Record<string, string>>;
  /** A fresh UUID per event. */
  newId: () => string;
  now: () => Date;
}

export interface ChangeEventInput {
  action: ChangeAction;
  object: WatchedObject;
  /** apiVersion/kind of the watched resource, for objects that lack them (watch events always have them). */
  resource: { apiVersion: string; kind: string };
}

/** The CloudEvent for one add/update/delete, in the source's mode. */
export function changeEvent(ctx: EventContext, input: ChangeEventInput): OutboundEvent {
  const id = identity(input.object, input.resource);
  const attributes: Record<string, string> = {
    specversion: SPEC_VERSION,
    id: ctx.newId(),
    source: ctx.source,
    type: ApiServerEventTypes[ctx.mode][input.action],
    subject: subjectFor(id),
    time: ctx.now().toISOString(),
    datacontenttype: DATA_CONTENT_TYPE,
    kind: id.kind,
    apiversion: id.apiVersion,
    name: id.name,
    namespace: id.namespace,
    ...ctx.extensions,
  };
  const data = ctx.mode === 'Resource' ? input.object : referenceData(id);
  return { attributes, data };
}
