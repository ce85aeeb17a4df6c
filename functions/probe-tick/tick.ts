/**
 * One invocation of probe-tick: take the ticker lease (one prober loop per seed at a time; a tick
 * that finds it held returns at once), then run passes until PROBE_TICK_SPAN is over. A pass lists
 * the Clusters (re-listed at most every 5 s, and with them a new seed view, ./seedview.ts: the
 * probe Secrets, Machines and dependents listed once for every shoot), reads every prober state from Redis in one MGET,
 * decides each shoot (./prober.ts) and runs what is due — a probe, or the next pass
 * of a scaling flow — with bounded concurrency; then it sleeps until the next due time. A pass
 * after which no prober is running (no Cluster, or every one skipped) ends the invocation at once:
 * the replica does not idle through the span when there is nothing to probe.
 *
 * The next invocation is queued by the invocation itself (`queuePass`, one requeue entry for the
 * function, the earliest time kept, handed over by requeue-tick; no PingSource a minute): after a
 * first pass that left a prober running, one due at the end of the span (an invocation that dies
 * mid-span is followed all the same); at the end, one due at once while a prober runs, or a retry
 * after RETRY_MS when the Clusters could not be listed. An invocation that finds the ticker lease
 * held queues one for when the lease runs out (its holder may have died). A seed without a running
 * prober queues nothing; a Cluster added, changed or deleted starts an invocation by its event
 * (upstream starts and stops probers on the Cluster's events), the resync any lost chain.
 *
 * Redis (family `prober`): `shoot:<namespace>` the ProberState as JSON; `running` the set of
 * namespaces with a state (for removing states of deleted Clusters); `ticker` the lease.
 */
import pLimit from 'p-limit';
import { GVK } from '../../shared/api/gvk.js';
import type { Cluster } from '../../shared/api/extensions.js';
import { acquireLease, keyspace, releaseLease, renewLease, type Redis } from '../../shared/redis/index.js';
import { statusCode } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { startFlow } from './flow.js';
import { afterProbe, decideShoot, withFlow, type ProberState, type ShootTick } from './prober.js';
import type { ProbeTickConfig } from './config.js';
import { probeShoot, type ProbeDeps } from './probe.js';
import { runFlowPass, type FlowPass, type ScaleDeps } from './scale.js';
import { createSeedView, type KubeConfigCache } from './seedview.js';

const KEYS = keyspace('prober');
export const TICKER_KEY = KEYS.key('ticker');
export const RUNNING_KEY = KEYS.key('running');
export const stateKey = (namespace: string): string => KEYS.key('shoot', namespace);

const LEASE_TTL_MS = 15_000;
const LEASE_RENEW_MS = 5_000;
const RELIST_MS = 5_000;
/** Shortest pause between passes. */
const MIN_PAUSE_MS = 200;
/** The next invocation after one that could not list the Clusters. */
export const RETRY_MS = 30_000;

export interface TickDeps extends ProbeDeps, ScaleDeps {
  redis: () => Promise<Redis>;
  log: Logger;
  rand: () => number;
  sleep: (ms: number) => Promise<void>;
  /** This instance's lease owner id. */
  owner: string;
  /** Aborted when the process is told to stop (SIGTERM): the loop ends after the current pass. */
  signal?: AbortSignal;
  /** Queues the next invocation at a time (ms; an earlier queued one is kept); absent: none. */
  queuePass?: (atMs: number) => Promise<void>;
  /**
   * True: no seed view; each shoot's Secret, Machines and dependents are read on their own, as
   * probe-tick did before issue 16 (8 seed requests per healthy shoot). Only the prober bench
   * sets it, to measure the tick before the change in the same run.
   */
  readPerShoot?: boolean;
}

export interface TickSummary {
  /** False: another invocation holds the ticker lease. */
  ran: boolean;
  passes: number;
  probes: number;
  flowPasses: number;
  /** The last pass left a prober running (the next invocation is queued). */
  probing: boolean;
  /**
   * The Clusters could not be listed for a reason that may pass (no answer, 5xx, 429): the next
   * invocation is queued after RETRY_MS. Not for 401, 403 or 404.
   */
  listFailed: boolean;
}

/**
 * When the invocation after one that ended at `now` is due (pure): at once while a prober runs,
 * after RETRY_MS when the Clusters could not be listed, none otherwise (a Cluster's event or the
 * resync starts the next).
 */
export function nextInvocationAt(summary: TickSummary, now: number): number | undefined {
  if (!summary.ran) return now + LEASE_TTL_MS;
  if (summary.probing) return now;
  return summary.listFailed ? now + RETRY_MS : undefined;
}

interface Pass {
  probes: number;
  flowPasses: number;
  nextDue: number;
}

function parseState(raw: string | null): ProberState | undefined {
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as ProberState;
  } catch {
    return undefined;
  }
}

/** Per-instance memory of the skip logged last per shoot, so a skip is logged once, not every pass. */
const lastSkip = new Map<string, string>();

function logSkip(
  log: Logger,
  namespace: string,
  tick: Extract<ShootTick, { kind: 'skip' | 'remove' }>,
): void {
  if (tick.kind === 'remove') {
    log.info(tick.message, { namespace, reason: tick.reason });
    lastSkip.delete(namespace);
    return;
  }
  if (lastSkip.get(namespace) === tick.reason) return;
  lastSkip.set(namespace, tick.reason);
  log.info(tick.message, { namespace, reason: tick.reason });
}

function afterFlow(
  deps: TickDeps,
  config: ProbeTickConfig,
  namespace: string,
  state: ProberState,
  pass: FlowPass,
): ProberState {
  const now = deps.now();
  if (pass.kind === 'pending') return withFlow(state, pass.flow, pass.due);
  const fields = { namespace, direction: state.flow?.direction };
  if (pass.kind === 'done') deps.log.info('Scaling flow completed', fields);
  else deps.log.error(pass.message, { ...fields, skippedLevels: pass.skippedLevels });
  return afterProbe(state, config.prober, false, now, deps.rand());
}

async function probe(
  deps: TickDeps,
  config: ProbeTickConfig,
  tick: Extract<ShootTick, { kind: 'run' }>,
): Promise<ProberState> {
  const namespace = tick.probe.namespace;
  const result = await probeShoot(deps, tick.probe);
  const now = deps.now();
  if (result.kind === 'failed') {
    deps.log.error(result.message, { namespace, throttled: result.throttled });
    const state = { ...tick.state, last: { at: now, result: 'failed', message: result.message } };
    return afterProbe(state, config.prober, result.throttled, now, deps.rand());
  }
  const d = result.decision;
  deps.log.info(d.message, {
    namespace,
    expiredLeasesFraction: d.expiredLeasesFraction,
    expirationThreshold: d.expirationThreshold,
    candidateLeases: d.total,
    expiredLeases: d.expired,
  });
  const last = { at: now, result: d.outcome, message: d.message };
  const state: ProberState = { ...tick.state, last };
  if (d.scale === 'none') return afterProbe(state, config.prober, false, now, deps.rand());
  const pass = await runFlowPass(deps, config.prober, namespace, startFlow(d.scale, now), d.message);
  return afterFlow(deps, config, namespace, state, pass);
}

async function continueFlow(
  deps: TickDeps,
  config: ProbeTickConfig,
  tick: Extract<ShootTick, { kind: 'run' }>,
): Promise<ProberState> {
  const namespace = tick.probe.namespace;
  const reason = tick.state.last?.message ?? 'scaling';
  const pass = await runFlowPass(deps, config.prober, namespace, tick.state.flow!, reason);
  return afterFlow(deps, config, namespace, tick.state, pass);
}

/** Runs what is due for one shoot; the state to keep (undefined: remove). */
async function shoot(
  deps: TickDeps,
  config: ProbeTickConfig,
  tick: ShootTick,
  namespace: string,
): Promise<ProberState | undefined | 'skip'> {
  if (tick.kind !== 'run') {
    logSkip(deps.log, namespace, tick);
    return tick.kind === 'remove' ? undefined : 'skip';
  }
  lastSkip.delete(namespace);
  if (tick.started)
    deps.log.info('Starting prober', { namespace, initialDelayMs: tick.probe.config.initialDelay });
  if (tick.due === 'probe') return probe(deps, config, tick);
  if (tick.due === 'scale') return continueFlow(deps, config, tick);
  return tick.state;
}

async function save(redis: Redis, namespace: string, state: ProberState | undefined): Promise<void> {
  if (state === undefined) {
    await redis.multi().del(stateKey(namespace)).srem(RUNNING_KEY, namespace).exec();
    return;
  }
  await redis.multi().set(stateKey(namespace), JSON.stringify(state)).sadd(RUNNING_KEY, namespace).exec();
}

/** States of Clusters that are gone. */
async function forgetDeleted(redis: Redis, names: ReadonlySet<string>): Promise<void> {
  const running = await redis.smembers(RUNNING_KEY);
  for (const ns of running.filter((n) => !names.has(n))) await save(redis, ns, undefined);
}

async function pass(deps: TickDeps, config: ProbeTickConfig, clusters: readonly Cluster[]): Promise<Pass> {
  const redis = await deps.redis();
  const named = clusters.filter((c) => c.metadata?.name);
  const names = named.map((c) => c.metadata!.name!);
  await forgetDeleted(redis, new Set(names));
  const raw = names.length > 0 ? await redis.mget(names.map(stateKey)) : [];
  const limit = pLimit(config.concurrency);
  const out: Pass = { probes: 0, flowPasses: 0, nextDue: Infinity };
  await Promise.all(
    named.map((cluster, i) =>
      limit(async () => {
        const namespace = names[i];
        const before = parseState(raw[i] ?? null);
        const tick = decideShoot(cluster, config.prober, before, deps.now());
        if (tick.kind === 'run' && tick.due === 'probe') out.probes++;
        if (tick.kind === 'run' && tick.due === 'scale') out.flowPasses++;
        const after = await shoot(deps, config, tick, namespace).catch((err: unknown) => {
          deps.log.error('probe failed unexpectedly', { namespace, error: String(err) });
          return tick.kind === 'run'
            ? afterProbe(tick.state, config.prober, false, deps.now(), deps.rand())
            : 'skip';
        });
        if (after === 'skip') return;
        if (after !== undefined) out.nextDue = Math.min(out.nextDue, after.nextAt);
        if (after === before) return;
        await save(redis, namespace, after);
      }),
    ),
  );
  return out;
}

/**
 * An answer no retry changes (the Cluster kind not served, the list not allowed): left to a
 * Cluster's event and the resync, as a retry every RETRY_MS would start a replica a minute for ever.
 */
function isLasting(err: unknown): boolean {
  const code = statusCode(err);
  return code === 401 || code === 403 || code === 404;
}

/**
 * The seed's Clusters; 'retry' (logged) when the API server does not answer or fails, 'lasting'
 * (logged) when no retry would change the answer.
 */
async function listClusters(deps: TickDeps): Promise<Cluster[] | 'retry' | 'lasting'> {
  try {
    return (await deps.seed.list<Cluster>(GVK.Cluster)).items;
  } catch (err) {
    const lasting = isLasting(err);
    deps.log.error(
      lasting
        ? 'cannot list Clusters; probing resumes on a Cluster event or the resync'
        : 'cannot list Clusters; probing resumes with the next invocation',
      { error: String(err) },
    );
    return lasting ? 'lasting' : 'retry';
  }
}

/**
 * The invocation ends after this pass: its span is over, it is told to stop, or no prober is
 * running (no Cluster, or none to probe), so nothing is due before a Cluster changes (its event
 * starts the next invocation, as upstream's probers start on Cluster events).
 */
function finished(p: Pass, now: number, end: number, signal: AbortSignal | undefined): boolean {
  return p.nextDue === Infinity || now >= end || signal?.aborted === true;
}

/** One invocation: passes until the span is over (at least one), under the ticker lease. */
export async function runTick(deps: TickDeps, config: ProbeTickConfig): Promise<TickSummary> {
  const redis = await deps.redis();
  const held = !(await acquireLease(redis, TICKER_KEY, deps.owner, LEASE_TTL_MS));
  const summary = held
    ? { ran: false, passes: 0, probes: 0, flowPasses: 0, probing: false, listFailed: false }
    : await passesUntil(deps, config, redis, deps.now() + config.tickSpanMs);
  // after the lease is released: the invocation it starts must find it free
  const next = nextInvocationAt(summary, deps.now());
  if (next !== undefined) await deps.queuePass?.(next);
  return summary;
}

/** `deps` with a new view of the seed (lists taken on first use, ./seedview.ts). */
function withSeedView(deps: TickDeps, config: ProbeTickConfig, cache: KubeConfigCache): TickDeps {
  const view = createSeedView({
    seed: deps.seed,
    mapper: deps.mapper,
    secretName: config.prober.kubeConfigSecretName,
    cache,
  });
  return { ...deps, view };
}

/**
 * Counts a pass; after the first that left a prober running, queues the end of the span as the
 * next invocation, should this one die before it queues its own.
 */
async function recordPass(
  deps: TickDeps,
  config: ProbeTickConfig,
  summary: TickSummary,
  p: Pass,
  end: number,
): Promise<void> {
  summary.passes++;
  summary.probes += p.probes;
  summary.flowPasses += p.flowPasses;
  summary.probing = p.nextDue !== Infinity;
  if (summary.passes === 1 && summary.probing && config.tickSpanMs > 0) await deps.queuePass?.(end);
}

/** The passes of one invocation under the ticker lease (released at the end). */
async function passesUntil(
  deps: TickDeps,
  config: ProbeTickConfig,
  redis: Redis,
  end: number,
): Promise<TickSummary> {
  const renew = setInterval(() => {
    void renewLease(redis, TICKER_KEY, deps.owner, LEASE_TTL_MS).catch(() => undefined);
  }, LEASE_RENEW_MS);
  renew.unref();
  const summary: TickSummary = {
    ran: true,
    passes: 0,
    probes: 0,
    flowPasses: 0,
    probing: false,
    listFailed: false,
  };
  let clusters: Cluster[] = [];
  let listedAt = -Infinity;
  // parsed probe kubeconfigs by Secret resourceVersion, for this invocation (memory only)
  const kubeConfigs: KubeConfigCache = new Map();
  let viewDeps: TickDeps = deps;
  try {
    do {
      if (deps.now() - listedAt >= RELIST_MS) {
        const listed = await listClusters(deps);
        summary.listFailed = listed === 'retry';
        if (!Array.isArray(listed)) break;
        clusters = listed;
        listedAt = deps.now();
        if (!deps.readPerShoot) viewDeps = withSeedView(deps, config, kubeConfigs);
      }
      const p = await pass(viewDeps, config, clusters);
      await recordPass(deps, config, summary, p, end);
      const now = deps.now();
      if (finished(p, now, end, deps.signal)) break;
      const wake = Math.min(p.nextDue, end, listedAt + RELIST_MS);
      await deps.sleep(Math.max(MIN_PAUSE_MS, wake - now));
    } while (deps.now() < end && !deps.signal?.aborted);
  } finally {
    clearInterval(renew);
    await releaseLease(redis, TICKER_KEY, deps.owner);
  }
  return summary;
}
