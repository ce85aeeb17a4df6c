/**
 * kubectl's client-side apply annotation under server-side apply, for the field manager
 * `kubectl` only (as the API server does it): conflicts on fields the live object still holds
 * as last applied by client-side apply are allowed (the upgrade from client-side apply needs no
 * --force-conflicts), and the annotation, where present, follows the applied configuration.
 */
import { apiVersionOf } from '../../registry/kinds.js';
import type { KubeObject, ResourceDef } from '../../api/types.js';
import type { FieldSet } from './fieldset.js';
import { goJson } from './path.js';
import { contextOf, rootSchema } from './schema.js';
import { compareObjects, fieldSetOf } from './walk.js';
import { isRecord } from '@landscape/apimachinery';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** The only field manager whose applies read and write the annotation. */
export const KUBECTL_MANAGER = 'kubectl';
/** apimachinery's TotalAnnotationSizeLimitB. */
const ANNOTATIONS_LIMIT = 256 * 1024;

/**
 * allowedConflictsFromLastApplied: the fields of the last-applied configuration whose value the
 * live object still has. Undefined when there is no usable annotation.
 */
export function allowedFromLastApplied(def: ResourceDef, live: KubeObject): FieldSet | undefined {
  const text = live.metadata.annotations?.[LAST_APPLIED];
  if (!text) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(last) || last.apiVersion !== apiVersionOf(def)) return undefined;
  const ctx = contextOf(def);
  const schema = rootSchema(def);
  const errors: string[] = [];
  const set = fieldSetOf(ctx, last, schema, errors);
  if (errors.length) return undefined;
  const c = compareObjects(ctx, last, live, schema);
  return set.difference(c.modified).difference(c.added).difference(c.removed);
}

/** buildLastApplied: the applied configuration without the annotation, as Go's JSON encoder writes it. */
export function buildLastApplied(applied: KubeObject): string {
  const copy = structuredClone(applied);
  const annotations = copy.metadata?.annotations;
  if (annotations) delete annotations[LAST_APPLIED];
  return `${goJson(copy)}\n`;
}

function annotationsSize(annotations: Record<string, string>): number {
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(v);
  return size;
}

/** lastAppliedUpdater: after an apply by `kubectl`, an existing annotation becomes the applied configuration. */
export function syncLastApplied(manager: string, object: KubeObject, applied: KubeObject): KubeObject {
  const current = object.metadata.annotations?.[LAST_APPLIED];
  if (manager !== KUBECTL_MANAGER || !current) return object;
  const annotations: Record<string, string> = {
    ...object.metadata.annotations,
    [LAST_APPLIED]: buildLastApplied(applied),
  };
  if (annotationsSize(annotations) > ANNOTATIONS_LIMIT) delete annotations[LAST_APPLIED];
  return { ...object, metadata: { ...object.metadata, annotations } };
}
