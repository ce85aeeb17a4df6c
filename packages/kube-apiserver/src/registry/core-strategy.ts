/**
 * The strategies of the core kinds whose writes do more than their schema defaults
 * (k8s.io/kubernetes pkg/registry/core/namespace/strategy.go and storage/storage.go,
 * pkg/registry/core/secret/strategy.go): a Namespace gets its `kubernetes` finalizer and phase
 * Active on create, phase Terminating when marked deleted, is held by its spec.finalizers and has
 * the `finalize` subresource; a Secret's stringData is folded into data and its type defaults to
 * Opaque on create and update.
 */
import { readPath, writePath } from '../api/objects.js';
import type { KubeObject } from '../api/types.js';
import type { KindStrategy } from './rest-strategy.js';

export const NAMESPACE_FINALIZER = 'kubernetes';

function namespaceOnCreate(obj: KubeObject): KubeObject {
  const finalizers = ((obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).filter(
    (f) => f !== NAMESPACE_FINALIZER,
  );
  return { ...obj, spec: { finalizers: [...finalizers, NAMESPACE_FINALIZER] }, status: { phase: 'Active' } };
}

function secretOnWrite(obj: KubeObject): KubeObject {
  const { stringData, ...rest } = obj as KubeObject & {
    stringData?: Record<string, string>;
    data?: Record<string, string>;
  };
  const data = { ...(rest.data ?? {}) };
  for (const [key, value] of Object.entries(stringData ?? {}))
    data[key] = Buffer.from(value, 'utf8').toString('base64');
  const out: KubeObject = { ...rest, type: rest.type ?? 'Opaque' };
  if (Object.keys(data).length || rest.data) out.data = data;
  return out;
}

/** core/v1 Namespace. Its status is set on create (not cleared as for other kinds with status). */
export const NAMESPACE_STRATEGY: KindStrategy = {
  prepareForCreate: (_def, obj) => namespaceOnCreate(obj),
  prepareForDelete: (_def, obj) => writePath(obj, '.status.phase', 'Terminating'),
  pendingFinalizers: (obj) => (readPath(obj, '.spec.finalizers') as string[] | undefined) ?? [],
  subresources: ['finalize'],
};

/** core/v1 Secret (no status subresource). */
export const SECRET_STRATEGY: KindStrategy = {
  prepareForCreate: (_def, obj) => secretOnWrite(obj),
  prepareForUpdate: (_def, _prev, next) => secretOnWrite(next),
};
