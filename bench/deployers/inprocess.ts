/**
 * N mock DeployItems through the deployer functions in this process, one step at a time over all
 * items (so that the API server's counts can be told apart by step): create, job trigger,
 * responsibility check, mock deployer; then one no-op pass, what every later event of a finished
 * item costs (trigger "unchanged", check, deployer "nothing-to-do"), over the first NOOP_SAMPLE
items. Each step runs with
 * `concurrency` items in flight; an unexpected outcome is counted, not thrown.
 */
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem } from '../../shared/api/landscaper.js';
import type { Event } from '../../shared/events/index.js';
import { trafficDelta, type TrafficSnapshot } from '@landscape/kube-apiserver/testing';
import { runPool, type PoolResult } from '../apiserver/pool.js';
import type { Harness } from './harness.js';
import { createItems, itemName, mockItem } from './items.js';

export const STEPS = ['create', 'trigger', 'check', 'deploy', 'no-op pass'] as const;
export type Step = (typeof STEPS)[number];
/** The steps of one item's way from created to Succeeded (what "per reconcile" sums). */
export const RECONCILE_STEPS: readonly Step[] = ['trigger', 'check', 'deploy'];

/** Items of the no-op pass (the first ones): its per-item figures need no more. */
export const NOOP_SAMPLE = 200;

export interface StepResult {
  step: Step;
  /** Items the step ran on. */
  items: number;
  pool: PoolResult;
  traffic: TrafficSnapshot;
}

export interface Completion {
  succeeded: number;
  failed: number;
  /** Neither (still open, or missing). */
  other: number;
  firstOther?: string;
}

export interface InProcessResult {
  items: number;
  /** The unmeasured warm-up items (none: measured from zero) and their create through deploy. */
  warmupItems?: number;
  warmupMs?: number;
  steps: StepResult[];
  /** create through deploy. */
  ms: number;
  /** This process's user + system CPU over create through deploy (redis-server not counted). */
  cpuMs: number;
  completion: Completion;
}

function must(what: string, actual: unknown, wanted: unknown): void {
  if (actual !== wanted) throw new Error(`${what}: ${String(actual)}, expected ${String(wanted)}`);
}

async function checkOne(h: Harness, namespace: string, name: string): Promise<Event> {
  const events = await h.check({ namespace, name });
  must(`${name} check: events`, events.length, 1);
  must(`${name} check: deployertype`, events[0].deployertype, 'mock');
  return events[0];
}

function stepTask(h: Harness, namespace: string, step: Step, events: Event[]): (i: number) => Promise<void> {
  const ref = (i: number): { namespace: string; name: string } => ({ namespace, name: itemName(i) });
  switch (step) {
    case 'create':
      throw new Error('create is not a per-item task');
    case 'trigger':
      return async (i) => must(`${itemName(i)} trigger`, await h.trigger(ref(i)), 'Created');
    case 'check':
      return async (i) => void (events[i] = await checkOne(h, namespace, itemName(i)));
    case 'deploy':
      return async (i) => must(`${itemName(i)} deploy`, await h.deploy(events[i]), 'finished');
    case 'no-op pass':
      return async (i) => {
        must(`${itemName(i)} trigger`, await h.trigger(ref(i)), 'unchanged');
        const event = await checkOne(h, namespace, itemName(i));
        must(`${itemName(i)} deploy`, await h.deploy(event), 'nothing-to-do');
      };
  }
}

async function runStep(
  h: Harness,
  step: Step,
  o: { namespace: string; items: number; concurrency: number },
  events: Event[],
): Promise<StepResult> {
  const items = step === 'no-op pass' ? Math.min(o.items, NOOP_SAMPLE) : o.items;
  const before = h.traffic.snapshot();
  const pool =
    step === 'create'
      ? await createItems(h.client, items, o.concurrency, (i) => mockItem(o.namespace, itemName(i)))
      : await runPool(items, o.concurrency, stepTask(h, o.namespace, step, events));
  return { step, items, pool, traffic: trafficDelta(h.traffic.snapshot(), before) };
}

type Outcome = 'succeeded' | 'failed' | 'other';

function outcomeOf(item: DeployItem): Outcome {
  const s = item.status;
  if (!s?.jobID || s.jobIDFinished !== s.jobID) return 'other';
  if (s.phase === 'Succeeded') return 'succeeded';
  return s.phase === 'Failed' ? 'failed' : 'other';
}

/** Succeeded / Failed / other among the listed items (jobIDFinished == jobID for the first two). */
export async function completion(list: () => Promise<DeployItem[]>, expected: number): Promise<Completion> {
  const items = await list();
  const c: Completion = { succeeded: 0, failed: 0, other: Math.max(0, expected - items.length) };
  for (const item of items) {
    const outcome = outcomeOf(item);
    c[outcome]++;
    if (outcome === 'other') c.firstOther ??= `${item.metadata?.name}: ${JSON.stringify(item.status ?? {})}`;
  }
  return c;
}

/**
 * Create through deploy of `warmup.items` items in their own namespace, unmeasured: the functions'
 * and the API server's code compiled before the measured items, as the landscape's side warms up.
 */
async function warmUp(
  h: Harness,
  o: { concurrency: number; warmup?: { namespace: string; items: number } },
): Promise<number | undefined> {
  if (!o.warmup || o.warmup.items === 0) return undefined;
  const w = { namespace: o.warmup.namespace, items: o.warmup.items, concurrency: o.concurrency };
  const events: Event[] = [];
  let ms = 0;
  for (const step of STEPS.slice(0, 4)) ms += (await runStep(h, step, w, events)).pool.ms;
  const done = await completion(
    async () => (await h.client.list<DeployItem>(GVK.DeployItem, w.namespace)).items,
    w.items,
  );
  if (done.succeeded !== w.items)
    throw new Error(`warm-up: ${done.succeeded} of ${w.items} items Succeeded (${done.firstOther ?? ''})`);
  return ms;
}

export async function runInProcess(
  h: Harness,
  o: { namespace: string; items: number; concurrency: number; warmup?: { namespace: string; items: number } },
): Promise<InProcessResult> {
  const warmupMs = await warmUp(h, o);
  const events: Event[] = [];
  const steps: StepResult[] = [];
  const cpu0 = process.cpuUsage();
  for (const step of STEPS.slice(0, 4)) steps.push(await runStep(h, step, o, events));
  const cpu = process.cpuUsage(cpu0);
  const ms = steps.reduce((sum, s) => sum + s.pool.ms, 0);
  const list = async (): Promise<DeployItem[]> =>
    (await h.client.list<DeployItem>(GVK.DeployItem, o.namespace)).items;
  const done = await completion(list, o.items);
  steps.push(await runStep(h, 'no-op pass', o, events));
  return {
    items: o.items,
    ...(warmupMs !== undefined ? { warmupItems: o.warmup?.items, warmupMs } : {}),
    steps,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    completion: done,
  };
}
