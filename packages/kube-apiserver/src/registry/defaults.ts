/**
 * What the registry strategies of built-in kinds do to an object on write beyond its schema
 * defaults: a Namespace gets its `kubernetes` finalizer and phase, a Secret's stringData is
 * folded into data and its type defaults to Opaque.
 */
import type { KubeObject, ResourceDef } from '../api/types.js';

export const NAMESPACE_FINALIZER = 'kubernetes';

type Normalizer = (obj: KubeObject, create: boolean) => KubeObject;

function namespace(obj: KubeObject, create: boolean): KubeObject {
  if (!create) return obj;
  const finalizers = ((obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).filter(
    (f) => f !== NAMESPACE_FINALIZER,
  );
  return { ...obj, spec: { finalizers: [...finalizers, NAMESPACE_FINALIZER] }, status: { phase: 'Active' } };
}

function secret(obj: KubeObject): KubeObject {
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

const NORMALIZERS: Record<string, Normalizer> = { Namespace: namespace, Secret: secret };

/** Applies a core kind's write-time normalisation (create or update of the main resource). */
export function normalizeOnWrite(def: ResourceDef, obj: KubeObject, create: boolean): KubeObject {
  const normalize = def.builtin && !def.group ? NORMALIZERS[def.kind] : undefined;
  return normalize ? normalize(obj, create) : obj;
}
