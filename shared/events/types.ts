/**
 * The event types and extension attribute names of DESIGN's "Events" table: the one home of
 * those constants in the code. New types follow `dev.landscape.<noun>.<verb>`.
 */
import { isOneOf } from '@landscape/apimachinery';

/** Knative ApiServerSource types (Reference and Resource mode). */
export const APISERVER_EVENT_TYPES = [
  'dev.knative.apiserver.ref.add',
  'dev.knative.apiserver.ref.update',
  'dev.knative.apiserver.ref.delete',
  'dev.knative.apiserver.resource.add',
  'dev.knative.apiserver.resource.update',
  'dev.knative.apiserver.resource.delete',
] as const;
export type ApiServerEventType = (typeof APISERVER_EVENT_TYPES)[number];

export const EVENT_TYPES = [
  ...APISERVER_EVENT_TYPES,
  'dev.knative.sources.ping',
  'dev.landscape.deployitem.reconcile',
  'dev.landscape.requeue',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const isEventType: (value: unknown) => value is EventType = isOneOf(EVENT_TYPES);

/**
 * The resync PingSources (knative/<family>/resync.yaml, namespace landscape-system): their
 * `dev.knative.sources.ping` events (source `/apis/v1/namespaces/landscape-system/pingsources/<name>`)
 * mean "list and reconcile what you own" to the functions of the family whose Triggers route them
 * there. Knative's ApiServerSource sends nothing for what exists or for what it missed, so this
 * periodic resync is what makes the product level-triggered.
 */
export const RESYNC_PING_SOURCES = ['deployers-resync', 'seedmanagement-resync'] as const;
export type ResyncPingSource = (typeof RESYNC_PING_SOURCES)[number];

/** Named constants for the types above, for readable call sites. */
export const EventTypes = {
  apiServerRefAdd: 'dev.knative.apiserver.ref.add',
  apiServerRefUpdate: 'dev.knative.apiserver.ref.update',
  apiServerRefDelete: 'dev.knative.apiserver.ref.delete',
  apiServerResourceAdd: 'dev.knative.apiserver.resource.add',
  apiServerResourceUpdate: 'dev.knative.apiserver.resource.update',
  apiServerResourceDelete: 'dev.knative.apiserver.resource.delete',
  ping: 'dev.knative.sources.ping',
  deployItemReconcile: 'dev.landscape.deployitem.reconcile',
  requeue: 'dev.landscape.requeue',
} as const satisfies Record<string, EventType>;

/** Extension attributes the product's events carry (DESIGN "Events"). */
export const EXTENSION_NAMES = [
  'kind',
  'apiversion',
  'name',
  'namespace',
  'deployertype',
  'uid',
  'target',
] as const;
export type ExtensionName = (typeof EXTENSION_NAMES)[number];
export const isExtensionName: (value: unknown) => value is ExtensionName = isOneOf(EXTENSION_NAMES);

/** Extensions Knative adds to a dead-lettered event (pkg/kncloudevents/attributes). */
export const KNATIVE_ERROR_EXTENSIONS = ['knativeerrordest', 'knativeerrorcode', 'knativeerrordata'] as const;
export type KnativeErrorExtension = (typeof KNATIVE_ERROR_EXTENSIONS)[number];
/** Knative truncates `knativeerrordata` (the base64 of the response body) to this many characters. */
export const KNATIVE_ERROR_DATA_MAX_LENGTH = 1024;

/** Extension attributes Knative's ApiServerSource sets, per type. */
export const EXTENSIONS_BY_TYPE: Readonly<Record<EventType, readonly ExtensionName[]>> = {
  'dev.knative.apiserver.ref.add': ['kind', 'apiversion', 'name', 'namespace'],
  'dev.knative.apiserver.ref.update': ['kind', 'apiversion', 'name', 'namespace'],
  'dev.knative.apiserver.ref.delete': ['kind', 'apiversion', 'name', 'namespace'],
  'dev.knative.apiserver.resource.add': ['kind', 'apiversion', 'name', 'namespace'],
  'dev.knative.apiserver.resource.update': ['kind', 'apiversion', 'name', 'namespace'],
  'dev.knative.apiserver.resource.delete': ['kind', 'apiversion', 'name', 'namespace'],
  'dev.knative.sources.ping': [],
  'dev.landscape.deployitem.reconcile': ['deployertype', 'namespace', 'name', 'uid'],
  'dev.landscape.requeue': ['target', 'namespace', 'name', 'kind'],
};

/** CloudEvents attribute names: lowercase ASCII letters and digits only. */
export const ATTRIBUTE_NAME_PATTERN = /^[a-z0-9]+$/;
export function isValidAttributeName(name: string): boolean {
  return ATTRIBUTE_NAME_PATTERN.test(name);
}

/** Spec versions the broker accepts (the SDK itself accepts any string). */
export const SPEC_VERSIONS = ['1.0', '0.3'] as const;
export type SpecVersion = (typeof SPEC_VERSIONS)[number];
export const isSpecVersion: (value: unknown) => value is SpecVersion = isOneOf(SPEC_VERSIONS);
