/**
 * One pass over one SeedAutoscaler (the HPA controller's reconcileAutoscaler): read the target's
 * scale and its seeds (./observe.ts), run decideSeedAutoscaler with the history of the status
 * (./history.ts), write the target's scale subresource when it rescales, then the status (status
 * subresource, optimistic on the resourceVersion read: a pass that lost the race leaves the status
 * to the winner) and the decision's Event on the autoscaler. A target that cannot be read or
 * written is reported as the HPA does: condition AbleToScale=False (FailedGetScale /
 * FailedUpdateScale) and a Warning Event.
 */
import { GVK } from '../../shared/api/gvk.js';
import type {
  AutoscalerCondition,
  SeedAutoscaler,
  SeedAutoscalerStatus,
} from '../../shared/api/seedautoscaler.js';
import { newEventObject } from '../../shared/kube/events.js';
import { isConflict, isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { decideSeedAutoscaler, type AutoscalerEvent, type SeedAutoscalerDecision } from './autoscaler.js';
import { FUNCTION_NAME, type SeedAutoscalerConfig } from './config.js';
import { historyFromStatus, historyToStatus } from './history.js';
import { readScale, setSeeds, targetProblem, writeScale, type Snapshot } from './observe.js';
import { formatTime } from '@landscape/apimachinery';

export interface AutoscaleDeps {
  client: KubeClient;
  now: () => Date;
  newId: () => string;
  log: Logger;
}

export type AutoscaleOutcome = 'rescaled' | 'unchanged' | 'failed';

export interface AutoscaleResult {
  autoscaler: string;
  outcome: AutoscaleOutcome;
  currentReplicas?: number;
  desiredReplicas?: number;
  reason: string;
}

interface Failure {
  status: SeedAutoscalerStatus;
  event: AutoscalerEvent;
}

function ableToScaleFalse(
  conditions: readonly AutoscalerCondition[],
  reason: string,
  message: string,
  now: Date,
): AutoscalerCondition[] {
  const prev = conditions.find((c) => c.type === 'AbleToScale');
  const kept = prev?.status === 'False' ? prev.lastTransitionTime : undefined;
  const next: AutoscalerCondition = {
    type: 'AbleToScale',
    status: 'False',
    reason,
    message,
    lastTransitionTime: kept ?? formatTime(now),
  };
  return prev ? conditions.map((c) => (c === prev ? next : c)) : [...conditions, next];
}

/** The HPA's report of a target it cannot get or update: AbleToScale=False and a Warning. */
export function scaleFailure(
  a: SeedAutoscaler,
  now: Date,
  why: { condition: string; event: string; message: string },
  currentReplicas?: number,
): Failure {
  const current = currentReplicas ?? a.status?.currentReplicas ?? 0;
  return {
    status: {
      ...a.status,
      observedGeneration: a.metadata?.generation ?? 0,
      currentReplicas: current,
      desiredReplicas: a.status?.desiredReplicas ?? current,
      conditions: ableToScaleFalse(a.status?.conditions ?? [], why.condition, why.message, now),
    },
    event: { type: 'Warning', reason: why.event, message: why.message },
  };
}

function eventObject(
  a: SeedAutoscaler,
  event: AutoscalerEvent,
  deps: AutoscaleDeps,
): Record<string, unknown> {
  const opts = { component: FUNCTION_NAME, now: deps.now(), newId: deps.newId };
  return newEventObject(GVK.SeedAutoscaler, a.metadata, event, opts);
}

async function finish(
  deps: AutoscaleDeps,
  a: SeedAutoscaler,
  status: SeedAutoscalerStatus,
  event: AutoscalerEvent | undefined,
): Promise<boolean> {
  try {
    await deps.client.replaceStatus(GVK.SeedAutoscaler, { ...a, status });
  } catch (err) {
    if (!isConflict(err) && !isNotFound(err)) throw err;
    deps.log.debug('autoscaler changed meanwhile; its status is left to the next pass', {
      error: String(err),
    });
    return false;
  }
  if (event) {
    await deps.client.create(GVK.Event, eventObject(a, event, deps)).catch((err: unknown) => {
      deps.log.warn('cannot record Event', { reason: event.reason, error: String(err) });
    });
  }
  return true;
}

const GET_SCALE = { condition: 'FailedGetScale', event: 'FailedGetScale' };
const UPDATE_SCALE = { condition: 'FailedUpdateScale', event: 'FailedRescale' };

async function failWith(
  deps: AutoscaleDeps,
  a: SeedAutoscaler,
  kind: typeof GET_SCALE,
  message: string,
  currentReplicas?: number,
): Promise<AutoscaleResult> {
  const f = scaleFailure(a, deps.now(), { ...kind, message }, currentReplicas);
  await finish(deps, a, f.status, f.event);
  return { autoscaler: nameOf(a), outcome: 'failed', reason: message };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function nameOf(a: SeedAutoscaler): string {
  return `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
}

async function decide(
  deps: AutoscaleDeps,
  config: SeedAutoscalerConfig,
  snap: Snapshot,
  a: SeedAutoscaler,
): Promise<{ decision: SeedAutoscalerDecision; current: number } | { error: string }> {
  const namespace = a.metadata?.namespace ?? '';
  const target = a.spec.scaleTargetRef;
  const problem = targetProblem(target);
  if (problem) return { error: problem };
  let scale;
  try {
    scale = await readScale(deps.client, namespace, target.name);
  } catch (err) {
    return {
      error: `the SeedAutoscaler controller was unable to get the target's current scale: ${String(err)}`,
    };
  }
  const current = scale.spec?.replicas ?? 0;
  const seeds = await setSeeds(deps.client, snap, namespace, target.name, scale);
  const decision = decideSeedAutoscaler(
    {
      autoscaler: a,
      currentReplicas: current,
      seeds,
      history: historyFromStatus(a.status?.history),
      now: deps.now(),
    },
    { tolerance: config.tolerance, downscaleStabilizationSeconds: config.downscaleStabilization },
  );
  return { decision, current };
}

/** One pass over one autoscaler. */
export async function autoscale(
  deps: AutoscaleDeps,
  config: SeedAutoscalerConfig,
  snap: Snapshot,
  a: SeedAutoscaler,
): Promise<AutoscaleResult> {
  const decided = await decide(deps, config, snap, a);
  if ('error' in decided) return failWith(deps, a, GET_SCALE, decided.error);
  const { decision: d, current } = decided;
  if (d.rescale) {
    try {
      await writeScale(
        deps.client,
        a.metadata?.namespace ?? '',
        a.spec.scaleTargetRef.name,
        d.desiredReplicas,
      );
    } catch (err) {
      const message = `the SeedAutoscaler controller was unable to update the target scale: ${describe(err)}`;
      return failWith(deps, a, UPDATE_SCALE, message, current);
    }
    deps.log.info('rescaled', {
      autoscaler: nameOf(a),
      from: current,
      to: d.desiredReplicas,
      reason: d.reason,
    });
  }
  await finish(deps, a, { ...d.status, history: historyToStatus(d.history) }, d.event);
  return {
    autoscaler: nameOf(a),
    outcome: d.error ? 'failed' : d.rescale ? 'rescaled' : 'unchanged',
    currentReplicas: current,
    desiredReplicas: d.desiredReplicas,
    reason: d.error ?? d.reason,
  };
}
