/**
 * The scaler's I/O around ./flow.ts: one pass over a scaling flow observes the
 * current level just before running it (metadata for found/annotations, the scale subresource
 * for spec.replicas, the object for status.readyReplicas while waiting), runs the due operations
 * (merge patches of annotations, the scale subresource within the resource's timeout), records a
 * Normal Event on each scaled resource, and hands back the flow to keep (or its end).
 * A dependent may be of any kind with a scale subresource: its resource is found through the
 * seed's discovery (./discovery.ts), as upstream's scaler does with a RESTMapper
 * (dependency-watchdog internal/prober/scaler/scale.go, internal/util/k8shelper.go).
 * With a seed view (./seedview.ts) a resource whose listed object shows nothing to do (at its
 * target, ready, no annotation to remove) is planned from the list, without reads: a healthy
 * shoot's scale-up costs no request. Anything to do is read again, object and scale subresource.
 */
import { randomBytes } from 'node:crypto';
import { GVK } from '../../shared/api/gvk.js';
import { ContentTypes, isNotFound, resourcePath, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import type { ProberConfig } from '../../shared/watchdog/config.js';
import {
  flowFailureMessage,
  flowLevels,
  needs,
  nextLevel,
  recordOperations,
  stepLevel,
  type Observation,
  type Operate,
  type ScaleFlow,
} from './flow.js';
import {
  minTargetReplicasReached,
  planResource,
  resourceKey,
  type ObservedResource,
  type ResourcePlan,
  type ScalableResource,
  type ScaleOperation,
} from './scaler.js';
import type { ScaleMapper } from './discovery.js';
import type { ListedWorkload, SeedView } from './seedview.js';

export interface ScaleDeps {
  seed: KubeClient;
  /** kind + apiVersion → the resource with a scale subresource (discovery of the seed, ./discovery.ts). */
  mapper: ScaleMapper;
  log: Logger;
  now: () => number;
  /** The seed's lists of this pass; absent: every resource is read on its own. */
  view?: SeedView;
}

export type FlowPass =
  | { kind: 'pending'; flow: ScaleFlow; due: number }
  | { kind: 'done' }
  | { kind: 'failed'; message: string; skippedLevels: number[] };

/** Passes through levels / waits that are due at once, bounded so a pass always ends. */
const MAX_ROUNDS = 16;

interface Ctx {
  deps: ScaleDeps;
  namespace: string;
  /** Why the flow runs (the probe's message), for the Events. */
  reason: string;
}

type Workload = {
  metadata?: { name?: string; uid?: string; annotations?: Record<string, string> };
  status?: { readyReplicas?: number };
};

/** The object (found, annotations, uid, readyReplicas) and the scale subresource (spec.replicas). */
async function readWorkload(
  ctx: Ctx,
  r: ScalableResource,
): Promise<{ observed: ObservedResource; uid?: string }> {
  const gvk = await ctx.deps.mapper(r);
  const object = await ctx.deps.seed.get<Workload>(gvk, ctx.namespace, r.name);
  const scale = await ctx.deps.seed.request({
    method: 'GET',
    path: resourcePath(gvk, { namespace: ctx.namespace, name: r.name, subresource: 'scale' }),
    timeoutMs: r.timeoutMs,
    signal: AbortSignal.timeout(r.timeoutMs),
  });
  const spec = (JSON.parse(scale.body) as { spec?: { replicas?: number } }).spec;
  const meta = object.metadata ?? {};
  return {
    observed: {
      found: true,
      annotations: meta.annotations ?? {},
      replicas: spec?.replicas ?? 0,
      readyReplicas: object.status?.readyReplicas ?? 0,
    },
    uid: meta.uid,
  };
}

/** The plan from a fresh read; one read of the object serves both the plan and an `already-scaled` wait. */
async function observePlan(ctx: Ctx, flow: ScaleFlow, r: ScalableResource): Promise<Seen> {
  try {
    const { observed, uid } = await readWorkload(ctx, r);
    return { plan: planResource(flow.direction, r, observed), observed, uid };
  } catch (err) {
    if (isNotFound(err)) return { plan: planResource(flow.direction, r, { found: false }) };
    const error = err instanceof Error ? err.message : String(err);
    return {
      plan: { key: resourceKey(r), resource: r, action: 'error', operations: [], error, message: error },
    };
  }
}

/** What a listed object says, as a read would (spec.replicas is the scale subresource's for the listed kinds). */
function observedListed(listed: ListedWorkload | null): ObservedResource {
  if (listed === null) return { found: false };
  return {
    found: true,
    annotations: listed.metadata?.annotations ?? {},
    replicas: listed.spec?.replicas ?? 0,
    readyReplicas: listed.status?.readyReplicas ?? 0,
  };
}

/** Nothing to do: no operation, no error, and readiness already reached if there is a wait. */
function nothingToDo(
  direction: ScaleFlow['direction'],
  plan: ResourcePlan,
  observed: ObservedResource,
): boolean {
  if (plan.action === 'error' || plan.operations.length > 0) return false;
  return plan.wait === undefined || minTargetReplicasReached(direction, observed.readyReplicas);
}

/** The plan from the view's list when it says there is nothing to do; undefined: read the resource. */
async function listedPlan(ctx: Ctx, flow: ScaleFlow, r: ScalableResource): Promise<Seen | undefined> {
  const listed = await ctx.deps.view?.dependent(r, ctx.namespace);
  if (listed === undefined) return undefined;
  const observed = observedListed(listed);
  const plan = planResource(flow.direction, r, observed);
  if (!nothingToDo(flow.direction, plan, observed)) return undefined;
  return listed === null ? { plan } : { plan, observed, uid: listed.metadata?.uid };
}

async function observeReady(ctx: Ctx, r: ScalableResource): Promise<number | undefined> {
  try {
    const obj = await ctx.deps.seed.get<{
      metadata?: { name?: string };
      status?: { readyReplicas?: number };
    }>(await ctx.deps.mapper(r), ctx.namespace, r.name);
    return obj.status?.readyReplicas ?? 0;
  } catch (err) {
    if (isNotFound(err)) return 0;
    throw err;
  }
}

async function runOperation(ctx: Ctx, r: ScalableResource, op: ScaleOperation): Promise<void> {
  const gvk = await ctx.deps.mapper(r);
  const ref = { namespace: ctx.namespace, name: r.name };
  ctx.deps.view?.written(ctx.namespace);
  if (op.op === 'patch-annotations') {
    await ctx.deps.seed.mergePatch(gvk, ref, { metadata: { annotations: op.annotations } });
    return;
  }
  await ctx.deps.seed.request({
    method: 'PATCH',
    path: resourcePath(gvk, { ...ref, subresource: 'scale' }),
    body: { spec: { replicas: op.replicas } },
    contentType: ContentTypes.mergePatch,
    timeoutMs: op.timeoutMs,
    signal: AbortSignal.timeout(op.timeoutMs),
  });
}

async function recordEvent(
  ctx: Ctx,
  r: ScalableResource,
  uid: string | undefined,
  from: number,
  to: number,
): Promise<void> {
  const time = new Date(ctx.deps.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const direction = to === 0 ? 'down' : 'up';
  try {
    await ctx.deps.seed.create(GVK.Event, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${r.name}.${randomBytes(8).toString('hex')}`, namespace: ctx.namespace },
      involvedObject: { apiVersion: r.apiVersion, kind: r.kind, name: r.name, namespace: ctx.namespace, uid },
      type: 'Normal',
      reason: direction === 'down' ? 'ScaledDown' : 'ScaledUp',
      message: `dependency-watchdog scaled ${r.kind.toLowerCase()} ${r.name} ${direction} from ${from} to ${to} replicas: ${ctx.reason}`,
      source: { component: 'dependency-watchdog-prober' },
      reportingComponent: 'dependency-watchdog-prober',
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    });
  } catch (err) {
    ctx.deps.log.warn('cannot record the scaling Event', {
      namespace: ctx.namespace,
      resource: r.name,
      error: String(err),
    });
  }
}

interface Seen {
  plan: ResourcePlan;
  observed?: ObservedResource;
  uid?: string;
}
type Observed = Record<string, Seen>;

async function observeLevel(
  ctx: Ctx,
  flow: ScaleFlow,
  level: readonly ScalableResource[],
): Promise<{ obs: Record<string, Observation>; seen: Observed }> {
  const need = needs(flow, level, ctx.deps.now());
  const obs: Record<string, Observation> = {};
  const seen: Observed = {};
  await Promise.all(
    level.map(async (r) => {
      const key = resourceKey(r);
      if (need[key] === 'plan') {
        seen[key] = (await listedPlan(ctx, flow, r)) ?? (await observePlan(ctx, flow, r));
        const ready = seen[key].observed?.readyReplicas;
        obs[key] =
          ready === undefined ? { plan: seen[key].plan } : { plan: seen[key].plan, readyReplicas: ready };
      } else if (need[key] === 'ready') obs[key] = { readyReplicas: await observeReady(ctx, r) };
    }),
  );
  return { obs, seen };
}

async function operate(
  ctx: Ctx,
  flow: ScaleFlow,
  level: readonly ScalableResource[],
  items: readonly Operate[],
  seen: Observed,
): Promise<ScaleFlow> {
  const results = await Promise.all(
    items.map(async (item) => {
      const r = level.find((x) => resourceKey(x) === item.key)!;
      const { plan, observed, uid } = seen[item.key];
      const fields = { namespace: ctx.namespace, resource: r.name, level: r.level, attempt: item.attempt };
      ctx.deps.log.info(plan.message, fields);
      try {
        for (const op of item.operations) await runOperation(ctx, r, op);
        const scaled = item.operations.find((o) => o.op === 'scale');
        if (scaled?.op === 'scale') {
          ctx.deps.log.info('Successfully scaled resource', {
            ...fields,
            from: observed?.replicas,
            replicas: scaled.replicas,
          });
          await recordEvent(ctx, r, uid, observed?.replicas ?? 0, scaled.replicas);
        }
        return { r, plan, result: { ok: true } };
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        ctx.deps.log.warn('scaling attempt failed', { ...fields, error });
        return { r, plan, result: { ok: false, error } };
      }
    }),
  );
  let next = flow;
  for (const x of results) next = recordOperations(next, x.r, x.plan, x.result, ctx.deps.now());
  return next;
}

/**
 * One pass over `flow`: runs what is due now, moving through levels while nothing waits. Levels
 * come from the config each pass (a changed config takes effect on the next level).
 */
export async function runFlowPass(
  deps: ScaleDeps,
  config: ProberConfig,
  namespace: string,
  flow: ScaleFlow,
  reason: string,
): Promise<FlowPass> {
  const ctx: Ctx = { deps, namespace, reason };
  const levels = flowLevels(config, flow.direction);
  let current = flow;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const level = levels[current.levelIndex];
    if (!level) return { kind: 'done' };
    const { obs, seen } = await observeLevel(ctx, current, level.resources);
    const step = stepLevel(current, level.resources, obs, namespace, deps.now());
    current = step.flow;
    const outcome = step.outcome;
    if (outcome.kind === 'failed') {
      return {
        kind: 'failed',
        message: flowFailureMessage(current.direction, outcome.errors),
        skippedLevels: levels.slice(current.levelIndex + 1).map((l) => l.level),
      };
    }
    if (outcome.kind === 'done') current = nextLevel(current, deps.now());
    else if (outcome.operate.length > 0)
      current = await operate(ctx, current, level.resources, outcome.operate, seen);
    else if (outcome.due > deps.now()) return { kind: 'pending', flow: current, due: outcome.due };
  }
  return { kind: 'pending', flow: current, due: deps.now() };
}
