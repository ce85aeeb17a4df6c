/**
 * The shapes list/watch works with: the loose object an API server sends (any kind), the kind
 * resolved to where it is listed and watched, and one change a list or a watch event makes.
 */
import { isOneOf } from '@landscape/apimachinery';

export const CHANGE_ACTIONS = ['add', 'update', 'delete'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];
export const isChangeAction: (value: unknown) => value is ChangeAction = isOneOf(CHANGE_ACTIONS);

/** A Kubernetes object as the API server sends it (loose: any kind). */
export interface WatchedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    labels?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** One change a list or a watch event makes (a trigger turns it into a CloudEvent). */
export interface Change {
  action: ChangeAction;
  /** For a delete, the last state known. */
  object: WatchedObject;
}

/** Resolved kind: where to list and watch it. */
export interface ResolvedKind {
  apiVersion: string;
  kind: string;
  /** The URL segment, from discovery (the ApiServerSource's subject uses Knative's guess instead). */
  plural: string;
  namespaced: boolean;
  group: string;
  version: string;
}

/** Waits `ms`; returns early when the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
