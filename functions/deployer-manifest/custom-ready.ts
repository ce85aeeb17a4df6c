/**
 * Custom readiness checks (`readinessChecks.custom[]`), upstream's CustomReadinessCheck:
 * the objects named by `resourceSelector` (each must exist) and those matching `labelSelector`
 * (across all namespaces; none is "not ready") must meet every requirement. A requirement reads
 * the values at `jsonPath` (jsonpath.ts): none found → not ready unless the operator is `!`
 * (DoesNotExist); `exists` → ready; else every value found must satisfy the operator against the
 * requirement's values (`=`, `==`, `in`: equals one; `!=`: differs from the one; `notin`: equals
 * none; `!` with a value found: not ready). Disabled checks are skipped.
 */
import pLimit from 'p-limit';
import { isNotFound } from '../../shared/kube/index.js';
import type { ReadinessContext } from './check-ready.js';
import { requestError } from './errors.js';
import { evaluate, parsePath } from './jsonpath.js';
import { deepEqual } from './objects.js';
import type { CustomReadinessCheck, CustomReadinessRequirement } from './provider-config.js';
import { describeRef } from './provider-status.js';
import type { JsonObject } from '@landscape/apimachinery';

const OPERATION = 'CustomCheckResourcesReadinessManifest';

function satisfies(value: unknown, r: CustomReadinessRequirement): boolean {
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return r.values.some((v) => deepEqual(value, v));
    case '!=':
      return !deepEqual(value, r.values[0]);
    case 'notin':
      return !r.values.some((v) => deepEqual(value, v));
    default:
      return false;
  }
}

/** Why an object fails a requirement (pure); undefined when it meets it. */
export function requirementProblem(obj: unknown, r: CustomReadinessRequirement): string | undefined {
  const found = evaluate(parsePath(r.jsonPath), obj);
  if (found.length === 0)
    return r.operator === '!' ? undefined : `field with JSON path ${r.jsonPath} does not exist`;
  if (r.operator === 'exists') return undefined;
  return found.every((v) => satisfies(v, r))
    ? undefined
    : `resource requirement is not fulfilled for field ${r.jsonPath}`;
}

/** The first requirement the object fails (pure). */
export function objectProblem(obj: JsonObject, check: CustomReadinessCheck): string | undefined {
  for (const r of check.requirements) {
    const p = requirementProblem(obj, r);
    if (p) return p;
  }
  return undefined;
}

function nameOf(obj: JsonObject): string {
  const meta = (obj.metadata ?? {}) as { name?: string; namespace?: string };
  return `${String(obj.kind)} ${meta.namespace ? `${meta.namespace}/` : ''}${meta.name ?? ''}`;
}

async function selected(
  ctx: ReadinessContext,
  check: CustomReadinessCheck,
): Promise<(JsonObject | string)[]> {
  const out: (JsonObject | string)[] = [];
  for (const ref of check.resourceSelector) {
    const kind = await ctx.resolver.resolve(ref.apiVersion, ref.kind);
    const obj = kind?.served
      ? await ctx.client.get<JsonObject>(kind.gvk, ref.namespace, ref.name).catch((err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        })
      : undefined;
    out.push(obj ?? `${describeRef(ref)} is not ready: not found`);
  }
  const sel = check.labelSelector;
  if (sel) {
    const kind = await ctx.resolver.resolve(sel.apiVersion, sel.kind);
    const labelSelector = Object.entries(sel.matchLabels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const items = kind?.served
      ? (await ctx.client.list<JsonObject>(kind.gvk, undefined, { labelSelector })).items
      : [];
    if (items.length === 0) out.push(`no ${sel.kind} matches the label selector ${labelSelector}`);
    out.push(...items.map((i) => ({ apiVersion: sel.apiVersion, kind: sel.kind, ...i })));
  }
  return out;
}

async function checkOne(ctx: ReadinessContext, check: CustomReadinessCheck): Promise<string[]> {
  if (check.disabled) return [];
  try {
    const objects = await selected(ctx, check);
    return objects.flatMap((o) => {
      if (typeof o === 'string') return [`${check.name}: ${o}`];
      const p = objectProblem(o, check);
      return p ? [`${check.name}: ${nameOf(o)} is not ready: ${p}`] : [];
    });
  } catch (err) {
    throw requestError(OPERATION, 'CheckResourceReadiness', `custom readiness check ${check.name}`, err);
  }
}

/** Why the custom checks do not pass yet; empty when they all do. */
export async function customNotReady(
  ctx: ReadinessContext,
  checks: readonly CustomReadinessCheck[],
): Promise<string[]> {
  const limit = pLimit(ctx.concurrency);
  return (await Promise.all(checks.map((c) => limit(() => checkOne(ctx, c))))).flat();
}
