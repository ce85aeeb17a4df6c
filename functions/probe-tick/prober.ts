/**
 * A shoot's prober as state between invocations, pure. Upstream runs one goroutine per shoot
 * (started by the Cluster controller, first probe after initialDelay, then every jittered
 * probeInterval measured from the end of the last probe, 10 s back-off after a 429; a scaling run
 * holds the loop until it ends). Here the same schedule is a `ProberState` per shoot (Redis), and
 * every pass of probe-tick asks decideShoot() what is due.
 *
 * A state that exists means "a prober is running": the start rules of the Cluster (waking up,
 * unfinished create) only keep a new one from starting; the stop rules remove a running one.
 */
import type { Cluster } from '../../shared/api/extensions.js';
import type { ProberConfig } from '../../shared/watchdog/config.js';
import type { ScaleFlow } from './flow.js';
import { decideBackoff } from './lease.js';
import { decideShootProbe, type ShootProbe, type ShootSkipReason } from './shoots.js';

export interface ProberState {
  /** When the prober started (ms since the epoch). */
  startedAt: number;
  /** When the next probe, or the next pass of a running scaling flow, is due. */
  nextAt: number;
  /** No probe before this time (set after an HTTP 429). */
  backoffUntil?: number;
  /** A scaling run in progress: it finishes before the next probe, as upstream's loop does. */
  flow?: ScaleFlow;
  /** The last probe's result and message (the message is the reason given on scaling Events). */
  last?: { at: number; result: string; message: string };
}

export type ShootTick =
  | { kind: 'skip'; reason: ShootSkipReason; message: string }
  | { kind: 'remove'; reason: ShootSkipReason; message: string }
  | {
      kind: 'run';
      probe: ShootProbe;
      state: ProberState;
      /** True when this pass starts the prober (state to be saved). */
      started: boolean;
      /** What is due now: a probe, the next pass of the flow, or nothing yet. */
      due: 'probe' | 'scale' | 'none';
    };

/** What to do for one Cluster at `now`, given the prober state kept for it (if any). */
export function decideShoot(
  cluster: Cluster,
  defaults: ProberConfig,
  state: ProberState | undefined,
  now: number,
): ShootTick {
  const decision = decideShootProbe(cluster, defaults, state !== undefined);
  if (!decision.probe) {
    return state !== undefined && decision.stopExisting
      ? { kind: 'remove', reason: decision.reason, message: decision.message }
      : { kind: 'skip', reason: decision.reason, message: decision.message };
  }
  const current = state ?? { startedAt: now, nextAt: now + decision.config.initialDelay };
  const due = current.nextAt > now ? 'none' : current.flow ? 'scale' : 'probe';
  return { kind: 'run', probe: decision, state: current, started: state === undefined, due };
}

/**
 * After a probe that started no scaling, or after a scaling flow ended: the next probe after the
 * jittered interval (and any pending back-off). The flow is dropped.
 */
export function afterProbe(
  state: ProberState,
  config: Pick<ProberConfig, 'probeInterval' | 'backoffJitterFactor'>,
  throttled: boolean,
  now: number,
  rand: number,
): ProberState {
  const d = decideBackoff({
    now: new Date(now),
    throttled,
    probeIntervalMs: config.probeInterval,
    backoffJitterFactor: config.backoffJitterFactor,
    rand,
    ...(state.backoffUntil !== undefined ? { backoffUntil: new Date(state.backoffUntil) } : {}),
  });
  const next: ProberState = {
    startedAt: state.startedAt,
    nextAt: d.nextProbeAt.getTime(),
    ...(state.last ? { last: state.last } : {}),
  };
  return d.backoffUntil ? { ...next, backoffUntil: d.backoffUntil.getTime() } : next;
}

/** A scaling flow in progress, next pass at `due`. */
export function withFlow(state: ProberState, flow: ScaleFlow, due: number): ProberState {
  return { ...state, flow, nextAt: due };
}
