/**
 * Types and closed sets of the API-server event source: the parts of Knative's ApiServerSource
 * spec it reads and the CloudEvent types it emits. The object shape it watches and the changes a
 * watch makes are the Reflector's (shared/kube/reflector).
 */
import { isOneOf } from '@landscape/apimachinery';
import type { LabelSelector } from '@landscape/apimachinery';
import type { ChangeAction } from '../../shared/kube/reflector/index.js';

export {
  CHANGE_ACTIONS,
  isChangeAction,
  type Change,
  type ChangeAction,
  type ResolvedKind,
  type WatchedObject,
} from '../../shared/kube/reflector/index.js';

export const EVENT_MODES = ['Reference', 'Resource'] as const;
export type EventMode = (typeof EVENT_MODES)[number];
export const isEventMode: (value: unknown) => value is EventMode = isOneOf(EVENT_MODES);

export const LABEL_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export type LabelSelectorOperator = (typeof LABEL_SELECTOR_OPERATORS)[number];
export const isLabelSelectorOperator: (value: unknown) => value is LabelSelectorOperator =
  isOneOf(LABEL_SELECTOR_OPERATORS);

/** `dev.knative.apiserver.{resource|ref}.{add|update|delete}` (Knative's names, exactly). */
export const ApiServerEventTypes = {
  Reference: {
    add: 'dev.knative.apiserver.ref.add',
    update: 'dev.knative.apiserver.ref.update',
    delete: 'dev.knative.apiserver.ref.delete',
  },
  Resource: {
    add: 'dev.knative.apiserver.resource.add',
    update: 'dev.knative.apiserver.resource.update',
    delete: 'dev.knative.apiserver.resource.delete',
  },
} as const satisfies Record<EventMode, Record<ChangeAction, string>>;

/** One entry of `spec.resources`. */
export interface ResourceSpec {
  apiVersion: string;
  kind: string;
  selector?: LabelSelector;
}

/** What the source needs of an ApiServerSource manifest, validated (see ./manifest.ts). */
export interface SourceSpec {
  /** `namespace/name` of the ApiServerSource, for logs. */
  id: string;
  /** The ApiServerSource's own namespace: watched alone when there is no namespaceSelector. */
  namespace: string;
  name: string;
  mode: EventMode;
  resources: ResourceSpec[];
  /** Absent: only `namespace`. `{}`: every namespace. Otherwise the namespaces whose labels match. */
  namespaceSelector?: LabelSelector;
  /** `spec.sink.uri`, when set. */
  sinkUri?: string;
  /** `spec.sink.ref`, when set (resolved by the caller's resolver). */
  sinkRef?: { apiVersion?: string; kind?: string; name?: string; namespace?: string };
  /** `spec.ceOverrides.extensions`: set on every outbound event (overriding what is there). */
  extensions: Record<string, string>;
  /** The manifest as read (for a sink resolver). */
  manifest: Record<string, unknown>;
}

/** A CloudEvent ready for binary-mode HTTP: context attributes (and extensions) and the JSON data. */
export interface OutboundEvent {
  attributes: Record<string, string>;
  data: unknown;
}
