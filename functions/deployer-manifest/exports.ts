/**
 * Exports of the manifest deployer, as upstream's Exporter
 * (pkg/deployer/lib/resourcemanager/exporter.go) and CreateOrUpdateExport
 * (pkg/deployer/lib/utils.go):
 * - per export with `fromResource`: read the object, take the value at `jsonPath`; with
 *   `fromObjectRef` that value is a reference `{name, namespace?}` (namespace defaults to the
 *   resource's) to an object of `fromObjectRef.apiVersion/kind`, whose value at
 *   `fromObjectRef.jsonPath` is exported; the value goes under `key` (`a.b` → `{a: {b: v}}`) and
 *   the exports are merged deeply in order.
 * - a value that cannot be read yet (object missing, path not there) is waited for: upstream polls
 *   until the progressing timeout; here the step returns `wait` (requeue, never wait) after the
 *   checkpoint `deployer: during export - key: <key>`, so the deadline ends the job with ERR_TIMEOUT.
 * - the values are written as JSON under key `config` of the Secret `<item name>-export` in the
 *   item's namespace (or where `status.exportRef` points), owned by the item; `status.exportRef`
 *   names it. Nothing is written when there are no exports (upstream: values nil).
 */
import type { DeployItem, ObjectRef } from '../../shared/api/landscaper.js';
import { exportSecretAt, writeExportSecret } from '../../shared/deployer/export-secret.js';
import type { KubeClient } from '../../shared/kube/index.js';
import type { KindResolver } from './discovery.js';
import { apiErrorMessage } from './errors.js';
import { keyFields, type ManifestExport } from './exports-config.js';
import { evaluate, parsePath } from './jsonpath.js';
import type { TypedObjectReference } from './readiness-config.js';
import { isRecord, type JsonObject } from '@landscape/apimachinery';

export { EXPORT_SECRET_KEY } from '../../shared/deployer/export-secret.js';

/** The one value at a path (upstream jsonpath.GetValue: none → "not found"). */
export function valueAt(path: string, obj: unknown): { value: unknown } | { error: string } {
  const found = evaluate(parsePath(path), obj);
  return found.length === 0 ? { error: 'not found' } : { value: found[0] };
}

/** `a.b` and v → `{a: {b: v}}` (upstream jsonpath.Construct). */
export function construct(key: string, value: unknown): Record<string, unknown> {
  const fields = keyFields(key) ?? [key];
  return fields.reduceRight<Record<string, unknown>>(
    (inner, f, i) => ({ [f]: i === fields.length - 1 ? value : inner }),
    {},
  );
}

/** Deep merge of maps, `b` wins (upstream utils.MergeMaps). */
export function mergeValues(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const have = out[k];
    out[k] = isRecord(have) && isRecord(v) ? mergeValues(have, v) : v;
  }
  return out;
}

/** The object a `fromObjectRef` value names (upstream's messages for a bad reference). */
export function referencedRef(
  value: unknown,
  from: TypedObjectReference,
  kind: { apiVersion: string; kind: string },
): TypedObjectReference | string {
  if (!isRecord(value))
    return `unexpected reference ${JSON.stringify(value)}, expected map with name and namespace`;
  if (!('name' in value))
    return `unexpected reference ${JSON.stringify(value)}, expected map to have a name key`;
  if (typeof value.name !== 'string') return `expected name ${JSON.stringify(value.name)} to be a string`;
  const namespace = 'namespace' in value ? value.namespace : from.namespace;
  if (namespace !== undefined && typeof namespace !== 'string')
    return `expected namespace ${JSON.stringify(namespace)} to be a string`;
  return { ...kind, name: value.name, ...(namespace ? { namespace } : {}) };
}

export interface ExportContext {
  client: KubeClient;
  resolver: KindResolver;
}

async function readObject(ctx: ExportContext, ref: TypedObjectReference): Promise<JsonObject> {
  const kind = await ctx.resolver.resolve(ref.apiVersion, ref.kind);
  if (!kind?.served) throw new Error(`unable to get apiresource for ${ref.apiVersion}, Kind=${ref.kind}`);
  return ctx.client.get<JsonObject>(kind.gvk, ref.namespace, ref.name);
}

async function exportValue(
  ctx: ExportContext,
  e: ManifestExport,
  from: TypedObjectReference,
): Promise<unknown> {
  const first = valueAt(e.jsonPath, await readObject(ctx, from));
  if ('error' in first) throw new Error(first.error);
  if (!e.fromObjectRef) return first.value;
  const ref = referencedRef(first.value, from, e.fromObjectRef);
  if (typeof ref === 'string') throw new Error(ref);
  const second = valueAt(e.fromObjectRef.jsonPath, await readObject(ctx, ref));
  if ('error' in second) throw new Error(second.error);
  return second.value;
}

export type ExportOutcome =
  { kind: 'values'; values: Record<string, unknown> } | { kind: 'missing'; key: string; reason: string };

/** Reads every export; the first that cannot be read yet ends it (`missing`). */
export async function readExports(
  ctx: ExportContext,
  exports: readonly ManifestExport[],
  checkpoint: (name: string) => void,
): Promise<ExportOutcome> {
  let values: Record<string, unknown> = {};
  for (const e of exports) {
    if (!e.fromResource) continue;
    checkpoint(`deployer: during export - key: ${e.key}`);
    try {
      values = mergeValues(values, construct(e.key, await exportValue(ctx, e, e.fromResource)));
    } catch (err) {
      return { kind: 'missing', key: e.key, reason: apiErrorMessage(err) };
    }
  }
  return { kind: 'values', values };
}

/** Where the export Secret is: `status.exportRef`, else `<item name>-export` in its namespace. */
export function exportLocation(item: DeployItem): { name: string; namespace: string } {
  const ref = item.status?.exportRef;
  const namespace = item.metadata?.namespace ?? 'default';
  return { name: ref?.name ?? `${item.metadata?.name ?? ''}-export`, namespace: ref?.namespace ?? namespace };
}

/** The export Secret (shared/deployer/export-secret.ts) where exportLocation says. */
export function exportSecret(item: DeployItem, values: unknown): JsonObject {
  return exportSecretAt(item, values, exportLocation(item));
}

/** Creates or updates the export Secret on the host cluster; its reference. */
export function writeExport(host: KubeClient, item: DeployItem, values: unknown): Promise<ObjectRef> {
  return writeExportSecret(host, item, values, exportLocation(item));
}
