/**
 * Running PingSources: croner fires on the schedule (in the source's time zone); after a jitter
 * of 0–500 ms (injected randomness and sleep) the `dev.knative.sources.ping` event is POSTed in
 * binary mode to the sink; a failed send (network error or non-2xx) is retried with exponential
 * backoff from 50 ms, like Knative's ping adapter, then dropped and logged.
 */
import { randomUUID } from 'node:crypto';
import { Cron } from 'croner';
import { buildEvent, emit, type Event, type EmitResult, type FetchLike } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log/index.js';
import { jitterMs, pingEvent, retryDelayMs } from './event.js';
import { cronMode, type PingSourceSpec } from './spec.js';

export interface PingSourceDeps {
  /** POSTs the event to the sink (default: shared/events `emit`, over `fetch` when one is given). */
  send?: (event: Event, sink: string) => Promise<EmitResult>;
  /**
   * The fetch of the default `send` (default: none, `emit` sends with node:http); the embedded
   * landscape's adds the broker ingress's bearer token for the ingress (`withIngressAuth`).
   */
  fetch?: FetchLike;
  /** [0, 1) for the jitter (default Math.random). */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  newId?: () => string;
  log?: Logger;
  /** Retries after a failed send (default 5). */
  retries?: number;
  /** Per-send timeout (default 10 s). */
  timeoutMs?: number;
}

export interface PingSourceOptions {
  /** Accept 6-field (seconds) schedules: the embedded landscape. */
  allowSeconds?: boolean;
}

export interface RunningPingSource {
  readonly spec: PingSourceSpec;
  /** The next scheduled run, null when there is none (stopped). */
  nextRun(): Date | null;
  /** Sends the event of the run scheduled at `time` (jitter, retries); true when delivered. */
  fire(time: Date): Promise<boolean>;
  /** Stops the schedule and waits for sends in flight. */
  stop(): Promise<void>;
}

/** Cron runs fall on whole seconds; croner starts a run a few ms late: the scheduled time. */
export function scheduledTime(started: Date): Date {
  return new Date(Math.floor(started.getTime() / 1000) * 1000);
}

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function sendWithRetries(event: Event, spec: PingSourceSpec, deps: FullDeps): Promise<boolean> {
  let last: EmitResult | undefined;
  for (let attempt = 0; attempt <= deps.retries; attempt++) {
    if (attempt > 0) await deps.sleep(retryDelayMs(attempt - 1));
    last = await deps.send(event, spec.sink);
    if (last.ok) return true;
  }
  const why = last?.kind === 'response' ? `HTTP ${last.status}` : (last?.error ?? 'not sent');
  deps.log?.warn('ping not delivered', {
    pingsource: `${spec.namespace}/${spec.name}`,
    sink: spec.sink,
    error: why,
  });
  return false;
}

type FullDeps = Required<Omit<PingSourceDeps, 'log' | 'fetch'>> & { log?: Logger };

function withDefaults(deps: PingSourceDeps): FullDeps {
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const fetch = deps.fetch ? { fetch: deps.fetch } : {};
  return {
    send: deps.send ?? ((e: Event, sink: string) => emit(e, { sink, timeoutMs, ...fetch })),
    random: deps.random ?? Math.random,
    sleep: deps.sleep ?? realSleep,
    newId: deps.newId ?? randomUUID,
    retries: deps.retries ?? 5,
    timeoutMs,
    ...(deps.log ? { log: deps.log } : {}),
  };
}

/** Starts one PingSource. */
export function startPingSource(
  spec: PingSourceSpec,
  deps: PingSourceDeps = {},
  opts: PingSourceOptions = {},
): RunningPingSource {
  const full = withDefaults(deps);
  const inflight = new Set<Promise<boolean>>();

  const fire = async (time: Date): Promise<boolean> => {
    await full.sleep(jitterMs(full.random));
    const event = buildEvent(pingEvent(spec, { id: full.newId(), time }));
    return sendWithRetries(event, spec, full);
  };

  const track = (time: Date): void => {
    const p = fire(time).catch((err: unknown) => {
      full.log?.error('ping failed', { pingsource: `${spec.namespace}/${spec.name}`, error: String(err) });
      return false;
    });
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };

  const cron = new Cron(
    spec.schedule,
    { mode: cronMode(opts.allowSeconds ?? false), ...(spec.timezone ? { timezone: spec.timezone } : {}) },
    (self: Cron) => track(scheduledTime(self.currentRun() ?? new Date())),
  );

  return {
    spec,
    nextRun: () => cron.nextRun(),
    fire,
    async stop(): Promise<void> {
      cron.stop();
      await Promise.allSettled([...inflight]);
    },
  };
}

/** Starts several PingSources; `stop()` stops them all. */
export function startPingSources(
  specs: readonly PingSourceSpec[],
  deps: PingSourceDeps = {},
  opts: PingSourceOptions = {},
): { sources: RunningPingSource[]; stop(): Promise<void> } {
  const sources = specs.map((s) => startPingSource(s, deps, opts));
  return {
    sources,
    async stop(): Promise<void> {
      await Promise.all(sources.map((s) => s.stop()));
    },
  };
}
