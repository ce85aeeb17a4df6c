/**
 * N mock DeployItems end to end through the full landscape (`local/main.ts` as a child process:
 * ApiServerSource, broker, activator, Redis, the functions as processes scaled from zero), items
 * created with bounded concurrency. Time: first create → last item finished (jobIDFinished ==
 * jobID); a final list decides Succeeded / Failed / other. The periodic resync is pushed out of
 * the run (it is not what an item's events cost).
 *
 * Where the API server runs (`apiserver`):
 * - `bench` (default): an embedded API server in this process with its traffic counted, the
 *   landscape started with `--kubeconfig` to it: every request of the landscape is counted where it
 *   is served (first create → QUIET_MS without a DeployItem get or write, so the events of the
 *   last writes are handled too). Items are seen finished in the store's change feed (no HTTP).
 * - `landscape`: `npm start`'s own API server, in the landscape process (one event loop with the
 *   broker, activator and source); nothing counted, items seen finished by a list every POLL_MS.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import {
  trafficDelta,
  trafficTotal,
  type TrafficCounter,
  type TrafficSnapshot,
} from '@landscape/kube-apiserver/testing';
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem } from '../../shared/api/landscaper.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../shared/kube/index.js';
import { runPool, type PoolResult } from '../apiserver/pool.js';
import { sleep } from '../runtime/children.js';
import { completion, type Completion } from './inprocess.js';
import { itemName, mockItem } from './items.js';
import { startLandscapeProcess, type LandscapeProcess } from './landscape.js';
import { crdFiles } from '../../shared/api/crds.js';

const DEPLOYITEMS = 'landscaper.gardener.cloud/deployitems';
/** DeployItem gets and writes stopped this long: the landscape has handled every event. */
const QUIET_MS = 2_000;
const QUIET_MAX_MS = 180_000;
const POLL_MS = 500;
const LANDSCAPE_ARGS = ['--resync-interval', '24h'];

const landscapeArgs = (o: EndToEndOptions): string[] =>
  o.embeddedSchedules ? [...LANDSCAPE_ARGS, '--embedded-schedules'] : LANDSCAPE_ARGS;

export const API_SERVER_PLACES = ['bench', 'landscape'] as const;
export type ApiServerPlace = (typeof API_SERVER_PLACES)[number];

export interface EndToEndOptions {
  namespace: string;
  items: number;
  /** Unmeasured items first, in a namespace of their own (none: measured from zero). */
  warmup?: { namespace: string; items: number };
  concurrency: number;
  readyTimeoutMs: number;
  timeoutMs: number;
  apiserver: ApiServerPlace;
  /**
   * The landscape's PingSources on their sub-minute `landscape.dev/embedded-schedule` (requeue-tick
   * every second, probe-tick every 10 s, syncobject-cleanup and landscaper-monitoring every 30 s) instead of their own one-minute-or-longer
   * schedules, as `npm start` and Knative run them (the default).
   */
  embeddedSchedules?: boolean;
}

export interface EndToEndResult {
  items: number;
  apiserver: ApiServerPlace;
  startupMs: number;
  /** The warm-up items and their first create → last finished (their events handled before the measured ones start). */
  warmupItems?: number;
  warmupMs?: number;
  create: PoolResult;
  /** First create → last item finished (or the deadline). */
  ms: number;
  /** Per item: its create answered → first seen finished. */
  latenciesMs: number[];
  /** The landscape's process group plus this process, first create → quiet (counted) or → `ms`. */
  cpuMs: number;
  landscapeCpuMs: number;
  completion: Completion;
  /** Mean JSON bytes of a finished item as the final list has it (the item's size). */
  itemBytes: number;
  timedOut: boolean;
  /** First create → quiet; only with the API server in this process. */
  traffic?: TrafficSnapshot;
  /** Last item finished → quiet. */
  settleMs?: number;
  /** False: still DeployItem requests after QUIET_MAX_MS (the counts stop there). */
  quiet?: boolean;
  /** SIGTERM → the landscape's exit (or its group killed). */
  stopMs: number;
}

/** When each item was created and first seen finished. */
abstract class Tracker {
  readonly finishedAt = new Map<string, number>();
  readonly createdAt = new Map<string, number>();

  constructor(protected readonly namespace: string) {}

  protected note(item: DeployItem): void {
    const name = item.metadata?.name ?? '';
    const s = item.status;
    if (item.metadata?.namespace !== this.namespace || this.finishedAt.has(name)) return;
    if (s?.jobID && s.jobIDFinished === s.jobID) this.finishedAt.set(name, performance.now());
  }

  /** Per finished item: create answered → first seen finished. */
  latencies(): number[] {
    const out: number[] = [];
    for (const [name, at] of this.finishedAt) {
      const created = this.createdAt.get(name);
      if (created !== undefined) out.push(Math.max(0, at - created));
    }
    return out;
  }

  abstract stop(): void;
}

/** The store's own change feed: exact, no requests. */
class FeedTracker extends Tracker {
  private readonly unsubscribe: () => void;

  constructor(api: ApiServer, namespace: string) {
    super(namespace);
    const off = api
      .cluster()
      .store.subscribe(DEPLOYITEMS, (e) => this.note(e.object as unknown as DeployItem));
    this.unsubscribe = off ?? ((): void => undefined);
  }

  stop(): void {
    this.unsubscribe();
  }
}

/** A list every POLL_MS (the time is when the poll saw it). */
class PollTracker extends Tracker {
  private stopped = false;

  constructor(client: KubeClient, namespace: string) {
    super(namespace);
    void this.loop(client);
  }

  private async loop(client: KubeClient): Promise<void> {
    while (!this.stopped) {
      try {
        for (const item of (await client.list<DeployItem>(GVK.DeployItem, this.namespace)).items)
          this.note(item);
      } catch {
        // the next poll tries again
      }
      await sleep(POLL_MS);
    }
  }

  stop(): void {
    this.stopped = true;
  }
}

async function waitUntil(done: () => boolean, deadline: number): Promise<boolean> {
  while (!done()) {
    if (performance.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** A get or write of a DeployItem: what the items' events cause (lists and watches are not). */
const itemKey = (key: string): boolean => / deployitems/.test(key) && !/^(list|watch) /.test(key);

/** Waits until no DeployItem get or write has been served for QUIET_MS (at most QUIET_MAX_MS). */
async function quiet(traffic: TrafficCounter): Promise<boolean> {
  const itemRequests = (): number =>
    trafficTotal(Object.fromEntries(Object.entries(traffic.snapshot()).filter(([k]) => itemKey(k)))).requests;
  const deadline = performance.now() + QUIET_MAX_MS;
  let last = itemRequests();
  let since = performance.now();
  while (performance.now() - since < QUIET_MS && performance.now() < deadline) {
    await sleep(200);
    const now = itemRequests();
    if (now !== last) [last, since] = [now, performance.now()];
  }
  return performance.now() - since >= QUIET_MS;
}

interface Env {
  client: KubeClient;
  landscape: LandscapeProcess;
  tracker: Tracker;
  traffic?: TrafficCounter;
}

type Measured = Omit<EndToEndResult, 'apiserver' | 'startupMs' | 'stopMs' | 'warmupItems' | 'warmupMs'>;

/** The counted traffic from `before` until quiet, and how long that took after `end`. */
async function settle(
  traffic: TrafficCounter | undefined,
  before: TrafficSnapshot | undefined,
  end: number,
): Promise<Pick<Measured, 'traffic' | 'settleMs' | 'quiet'>> {
  if (!traffic || !before) return {};
  const reached = await quiet(traffic);
  return {
    traffic: trafficDelta(traffic.snapshot(), before),
    settleMs: performance.now() - end,
    quiet: reached,
  };
}

async function measure(env: Env, o: EndToEndOptions): Promise<Measured> {
  const { client, landscape, tracker, traffic } = env;
  const cpu0 = landscape.cpuMs();
  const own0 = process.cpuUsage();
  const before = traffic?.snapshot();
  const t0 = performance.now();
  const create = await runPool(o.items, o.concurrency, async (i) => {
    await client.create(GVK.DeployItem, mockItem(o.namespace, itemName(i)));
    tracker.createdAt.set(itemName(i), performance.now());
  });
  const allDone = await waitUntil(() => tracker.finishedAt.size >= o.items, t0 + o.timeoutMs);
  const end = allDone ? Math.max(...tracker.finishedAt.values()) : performance.now();
  tracker.stop();
  const counted = await settle(traffic, before, end);
  const landscapeCpuMs = landscape.cpuMs() - cpu0;
  const own = process.cpuUsage(own0);
  let itemBytes = NaN;
  const list = async (): Promise<DeployItem[]> => {
    const items = (await client.list<DeployItem>(GVK.DeployItem, o.namespace)).items;
    const total = items.reduce((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0);
    itemBytes = items.length > 0 ? total / items.length : NaN;
    return items;
  };
  const done = await completion(list, o.items);
  return {
    items: o.items,
    create,
    ms: end - t0,
    latenciesMs: tracker.latencies(),
    cpuMs: landscapeCpuMs + (own.user + own.system) / 1000,
    landscapeCpuMs,
    completion: done,
    itemBytes,
    timedOut: !allDone,
    ...counted,
  };
}

interface Started {
  landscape: LandscapeProcess;
  client: KubeClient;
  tracker: (namespace: string) => Tracker;
  traffic?: TrafficCounter;
}

/**
 * The warm-up items through the landscape, unmeasured: its replicas started and every process's
 * code compiled before the measured items, as in a landscape that has been running. Ends when
 * they are finished and their last events are handled (no DeployItem request for QUIET_MS).
 */
async function warmUp(s: Started, o: EndToEndOptions): Promise<number | undefined> {
  const w = o.warmup;
  if (!w || w.items === 0) return undefined;
  await s.client.create(GVK.Namespace, { metadata: { name: w.namespace } });
  const tracker = s.tracker(w.namespace);
  const t0 = performance.now();
  try {
    await runPool(w.items, o.concurrency, async (i) => {
      await s.client.create(GVK.DeployItem, mockItem(w.namespace, itemName(i)));
    });
    if (!(await waitUntil(() => tracker.finishedAt.size >= w.items, t0 + o.timeoutMs)))
      throw new Error(`warm-up: ${tracker.finishedAt.size} of ${w.items} items finished in time`);
  } finally {
    tracker.stop();
  }
  const ms = Math.max(...tracker.finishedAt.values()) - t0;
  if (s.traffic) await quiet(s.traffic);
  else await sleep(QUIET_MS);
  return ms;
}

/** Starts the landscape, measures, stops it (also on error). */
async function run(o: EndToEndOptions, start: () => Promise<Started>): Promise<EndToEndResult> {
  const t0 = performance.now();
  const s = await start();
  const startupMs = performance.now() - t0;
  let result: Measured;
  let warmupMs: number | undefined;
  try {
    await s.client.create(GVK.Namespace, { metadata: { name: o.namespace } });
    warmupMs = await warmUp(s, o);
    result = await measure({ ...s, tracker: s.tracker(o.namespace) }, o);
  } catch (e) {
    await s.landscape.stop();
    throw new Error(`${(e as Error).message}\nlandscape output:\n${s.landscape.output()}`, { cause: e });
  }
  const t1 = performance.now();
  await s.landscape.stop();
  return {
    ...result,
    apiserver: o.apiserver,
    startupMs,
    ...(warmupMs !== undefined ? { warmupItems: o.warmup?.items, warmupMs } : {}),
    stopMs: performance.now() - t1,
  };
}

/** The items' creator: connections kept alive, as client-go's (and the in-process side's). */
const clientFor = (yaml: string): KubeClient =>
  createKubeClient(kubeConfigFromYaml(yaml), { fieldManager: 'bench', keepAlive: true });

async function withOwnApiServer(o: EndToEndOptions): Promise<EndToEndResult> {
  return run(o, async () => {
    const landscape = await startLandscapeProcess(o.readyTimeoutMs, () => Promise.resolve(landscapeArgs(o)));
    const client = clientFor(readFileSync(join(landscape.stateDir, 'kubeconfig'), 'utf8'));
    return { landscape, client, tracker: (ns) => new PollTracker(client, ns) };
  });
}

async function withCountedApiServer(o: EndToEndOptions): Promise<EndToEndResult> {
  // what `npm start` runs: workload status simulated after 500 ms, no Pods for workloads
  const api = await startApiServer({
    crdFiles: crdFiles(),
    clusters: [{ name: 'main', countTraffic: true }],
    workloads: { delayMs: 500, createPods: false },
  });
  const yaml = api.cluster().kubeconfigYaml();
  const withKubeconfig = async (stateDir: string): Promise<string[]> => {
    const kubeconfig = join(stateDir, 'bench.kubeconfig');
    await writeFile(kubeconfig, yaml, { mode: 0o600 });
    return [...landscapeArgs(o), '--kubeconfig', kubeconfig];
  };
  try {
    return await run(o, async () => ({
      landscape: await startLandscapeProcess(o.readyTimeoutMs, withKubeconfig),
      client: clientFor(yaml),
      tracker: (ns) => new FeedTracker(api, ns),
      traffic: api.cluster().traffic!,
    }));
  } finally {
    await api.stop();
  }
}

export function runEndToEnd(o: EndToEndOptions): Promise<EndToEndResult> {
  return o.apiserver === 'bench' ? withCountedApiServer(o) : withOwnApiServer(o);
}
