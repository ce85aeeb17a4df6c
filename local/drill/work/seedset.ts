/**
 * A ManagedSeedSet under a SeedAutoscaler, as test/e2e/seedmanagement.test.ts drives it: the set
 * (in `garden`, where ManagedSeeds live) starts with one replica whose seeds hold 5 shoots each;
 * its replicas' Shoots go to a "soil" seed of their own provider. Once replica 0 is a ready seed
 * the autoscaler (50 % target, 1-3 replicas) is created and 4 shoots (80 %) go onto that seed, so
 * the set grows to 2; once the new seed is ready a 5th shoot goes to it (fewest shoots). This runs
 * as a background driver started by start(); settled() waits for it and the end state.
 */
import { GVK } from '../../../shared/api/gvk.js';
import type { DrillContext, Workload, WorkloadCheck } from '../types.js';
import { createOnce, ensureNamespace, label, listAll, readOptional, sleep, waitFor } from './retry.js';
import {
  allocatableOf,
  cloudProfile,
  createShoots,
  overAllocatable,
  seedObject,
  seedReady,
  shootProblem,
  type SeedObject,
  type ShootObject,
} from './shoots.js';

const GARDEN = 'garden';
const SEED_CAPACITY = 5;
const EXPECTED_REPLICAS = 2;
const FIRST_SHOOTS = ['w-0', 'w-1', 'w-2', 'w-3'];
const LAST_SHOOT = 'w-4';
/** schedule-shoot's `seedCacheTtl` (functions/schedule-shoot/config.ts default; the drill does not set it). */
const SEED_CACHE_TTL_MS = 2_000;
/** How long one stage may take: longer while a thousand DeployItems load the machine. */
const STAGE_MS = 150_000;
const LOADED_STAGE_MS = 400_000;

function stageMs(ctx: DrillContext): number {
  return ctx.scale.mockItems + ctx.scale.manifestItems > 500 ? LOADED_STAGE_MS : STAGE_MS;
}

interface Plan {
  set: string;
  namespace: string;
  soil: string;
  auto: string;
}

interface State extends Plan {
  driver?: Promise<void>;
  done: boolean;
  failure?: string;
}

interface SetObject {
  metadata?: { name?: string };
  spec: { replicas?: number };
  status?: { replicas?: number; readyReplicas?: number };
}

interface ManagedSeedObject {
  metadata: { name: string; ownerReferences?: { kind: string; name: string }[] };
}

function plan(ctx: DrillContext): Plan {
  return {
    set: label(ctx.namespace, 'set'),
    namespace: label(ctx.namespace, 'set-shoots'),
    soil: label(ctx.namespace, 'soil'),
    auto: label(ctx.namespace, 'auto'),
  };
}

function managedSeedSet(p: Plan): Record<string, unknown> {
  const labels = { app: 'seeds', set: p.set };
  const seedSpec = (seedObject('x', p.auto) as { spec: Record<string, unknown> }).spec;
  return {
    metadata: { name: p.set, namespace: GARDEN },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          gardenlet: {
            config: {
              apiVersion: 'gardenlet.config.gardener.cloud/v1alpha1',
              kind: 'GardenletConfiguration',
              resources: { capacity: { shoots: SEED_CAPACITY } },
              seedConfig: {
                metadata: { labels },
                spec: {
                  ...seedSpec,
                  ingress: { domain: 'ingress.replica-name.seeds.local', controller: { kind: 'nginx' } },
                },
              },
            },
          },
        },
      },
      shootTemplate: {
        metadata: { labels },
        spec: {
          cloudProfileName: p.soil,
          region: p.soil,
          provider: { type: p.soil, workers: [{ name: 'pool', machine: { type: 'm' } }] },
          dns: { domain: 'replica-name.seeds.local' },
        },
      },
    },
  };
}

function seedAutoscaler(p: Plan): Record<string, unknown> {
  return {
    metadata: { name: p.set, namespace: GARDEN },
    spec: {
      scaleTargetRef: { apiVersion: GVK.ManagedSeedSet.apiVersion, kind: 'ManagedSeedSet', name: p.set },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'shoots', target: { type: 'Utilization', averageUtilization: 50 } },
        },
      ],
    },
  };
}

const replica = (p: Plan, n: number): string => `${p.set}-${n}`;

async function replicaReady(ctx: DrillContext, p: Plan, n: number): Promise<boolean> {
  const seed = await readOptional<SeedObject>(ctx.main, GVK.Seed, undefined, replica(p, n));
  return seedReady(seed) && allocatableOf(seed) === SEED_CAPACITY;
}

async function stage(ctx: DrillContext, what: string, probe: () => Promise<boolean>): Promise<void> {
  if (!(await waitFor(probe, stageMs(ctx), 1_000))) throw new Error(`timed out waiting for ${what}`);
  ctx.log(`seedset: ${what}`);
}

async function setUp(ctx: DrillContext, p: Plan): Promise<void> {
  await ensureNamespace(ctx.main, GARDEN);
  await ensureNamespace(ctx.main, p.namespace);
  for (const provider of [p.soil, p.auto])
    await createOnce(ctx.main, GVK.CloudProfile, cloudProfile(provider));
  await createOnce(ctx.main, GVK.Seed, seedObject(p.soil, p.soil));
}

/** Whether the soil seed (where the replicas' Shoots go) is ready with allocatable. */
async function soilReady(ctx: DrillContext, p: Plan): Promise<boolean> {
  const seed = await readOptional<SeedObject>(ctx.main, GVK.Seed, undefined, p.soil);
  return seedReady(seed) && allocatableOf(seed) !== undefined;
}

/** The stages: soil ready, the set, replica 0 ready, autoscaler, load, growth, the new seed takes a shoot. */
async function drive(ctx: DrillContext, p: Plan): Promise<void> {
  // the replicas' Shoots are scheduled at once (no retry back-off) when the soil seed is ready
  await stage(ctx, 'soil seed ready', () => soilReady(ctx, p));
  await createOnce(ctx.main, GVK.ManagedSeedSet, managedSeedSet(p));
  await stage(ctx, 'replica 0 ready', () => replicaReady(ctx, p, 0));
  await createOnce(ctx.main, GVK.SeedAutoscaler, seedAutoscaler(p));
  await createShoots(ctx, p.namespace, FIRST_SHOOTS, p.auto);
  await stage(ctx, 'grown to 2 replicas, replica 1 ready', async () => {
    const set = await readOptional<SetObject>(ctx.main, GVK.ManagedSeedSet, GARDEN, p.set);
    return (set?.spec.replicas ?? 0) >= EXPECTED_REPLICAS && (await replicaReady(ctx, p, 1));
  });
  // a schedule-shoot instance reuses its list of Seeds for seedCacheTtl (2s by default): a shoot
  // created sooner may be decided on a list where the new seed is not ready yet, and go to the
  // other seed, which still has room (as upstream's scheduler would on a lagging informer)
  await sleep(SEED_CACHE_TTL_MS + 1_000);
  await createShoots(ctx, p.namespace, [LAST_SHOOT], p.auto);
}

async function managedSeeds(ctx: DrillContext, p: Plan): Promise<ManagedSeedObject[]> {
  return (await listAll<ManagedSeedObject>(ctx.main, GVK.ManagedSeed, GARDEN)).filter((m) =>
    (m.metadata.ownerReferences ?? []).some((o) => o.kind === 'ManagedSeedSet' && o.name === p.set),
  );
}

/** Everything that is wrong with the end state (empty: settled and fine). */
async function problems(ctx: DrillContext, p: Plan): Promise<string[]> {
  const set = await readOptional<SetObject>(ctx.main, GVK.ManagedSeedSet, GARDEN, p.set);
  const out: string[] = [];
  if (set?.spec.replicas !== EXPECTED_REPLICAS)
    out.push(`set ${p.set} has replicas ${set?.spec.replicas ?? '-'}, expected ${EXPECTED_REPLICAS}`);
  const seeds = new Map((await listAll<SeedObject>(ctx.main, GVK.Seed)).map((s) => [s.metadata.name, s]));
  const ms = await managedSeeds(ctx, p);
  if (ms.length !== EXPECTED_REPLICAS) out.push(`set ${p.set} has ${ms.length} ManagedSeeds`);
  for (const m of ms)
    if (!seedReady(seeds.get(m.metadata.name))) out.push(`seed of ManagedSeed ${m.metadata.name} not ready`);
  const shoots = await listAll<ShootObject>(ctx.main, GVK.Shoot);
  const mine = new Map(
    shoots.filter((s) => s.metadata.namespace === p.namespace).map((s) => [s.metadata.name, s]),
  );
  const reconciled = ctx.landscape.fixtures !== undefined;
  for (const n of [...FIRST_SHOOTS, LAST_SHOOT]) out.push(...shootProblem(mine.get(n), n, reconciled));
  if (![...mine.values()].some((s) => s.spec.seedName === replica(p, 1)))
    out.push(`the new seed ${replica(p, 1)} took no shoots`);
  const ours = [p.soil, ...ms.map((m) => m.metadata.name)].flatMap((n) => seeds.get(n) ?? []);
  return [...out, ...overAllocatable(ours, shoots)];
}

export function seedSet(): Workload {
  let state: State | undefined;
  const get = (ctx: DrillContext): State => (state ??= { ...plan(ctx), done: false });
  return {
    name: 'seedset',
    async start(ctx) {
      const s = get(ctx);
      await setUp(ctx, s);
      s.driver = drive(ctx, s).then(
        () => {
          s.done = true;
        },
        (err: unknown) => {
          s.done = true;
          s.failure = err instanceof Error ? err.message : String(err);
          ctx.log(`seedset: ${s.failure}`);
        },
      );
    },
    async settled(ctx) {
      const s = get(ctx);
      return s.done && (s.failure !== undefined || (await problems(ctx, s)).length === 0);
    },
    async check(ctx): Promise<WorkloadCheck> {
      const s = get(ctx);
      const lost = [...(s.failure ? [`driver: ${s.failure}`] : []), ...(await problems(ctx, s))];
      return { operations: FIRST_SHOOTS.length + 1 + 1, lost };
    },
  };
}
