/**
 * `scale.shoots` Shoots scheduled onto Seeds of their own provider and region (as
 * test/e2e/seedmanagement.test.ts does it): Seeds sized 17 / 18 / 20 / 17 / ... shoots until they
 * hold all shoots plus a little spare — the sizes come from seed-status's config, which the drill
 * writes with `seedStatusConfig()` (without it every seed has seed-status's default, 250, and the
 * check reads the allocatable the seeds really report). The fixture controller makes the seeds
 * ready and reconciles the bound shoots. End state: every shoot bound (and reconciled when the
 * fixture controller runs), no seed over its allocatable.
 */
import pLimit from 'p-limit';
import { GVK } from '../../../shared/api/gvk.js';
import type { DrillContext, Workload, WorkloadCheck } from '../types.js';
import { createOnce, ensureNamespace, label, listAll, waitFor } from './retry.js';

const SIZES = [17, 18, 20] as const;
const BATCH = 20;
/** How long start() waits for the seeds to be ready with allocatable before creating the shoots. */
const SEEDS_READY_MS = 120_000;

export interface SeedMeta {
  name: string;
  deletionTimestamp?: string;
}

export interface SeedObject {
  metadata: SeedMeta;
  status?: {
    conditions?: { type: string; status: string }[];
    allocatable?: { shoots?: string | number };
  };
}

export interface ShootObject {
  metadata: { name: string; namespace?: string };
  spec: { seedName?: string };
  status?: { lastOperation?: { state?: string; description?: string } };
}

/** The seeds of the workload: name and the allocatable shoots seed-status should give it. */
export function seedPlan(namespace: string, shoots: number): { name: string; shoots: number }[] {
  const spare = Math.max(2, Math.ceil(shoots * 0.05));
  const out: { name: string; shoots: number }[] = [];
  let total = 0;
  while (total < shoots + spare || out.length < 2) {
    const size = SIZES[out.length % SIZES.length];
    out.push({ name: label(namespace, 'seed', String(out.length)), shoots: size });
    total += size;
  }
  return out;
}

/**
 * seed-status's config for the drill: the sizes of the seeds a run with up to `maxShoots` shoots
 * creates in `namespace` (a run with fewer uses the first of them), 250 for other seeds.
 */
export function seedStatusConfig(namespace: string, maxShoots = 1000): string {
  const seeds = seedPlan(namespace, maxShoots)
    .map((s) => `  ${s.name}: {capacity: {shoots: ${s.shoots}}}`)
    .join('\n');
  return `managedSeedNamespace: garden
default:
  capacity: {shoots: 250}
seeds:${seeds ? `\n${seeds}` : ' {}'}
concurrency: 4
logLevel: info
`;
}

export const seedReady = (s: SeedObject | undefined): boolean =>
  s?.status?.conditions?.some((c) => c.type === 'GardenletReady' && c.status === 'True') ?? false;

export const allocatableOf = (s: SeedObject | undefined): number | undefined =>
  s?.status?.allocatable?.shoots === undefined ? undefined : Number(s.status.allocatable.shoots);

export function cloudProfile(name: string): Record<string, unknown> {
  return { metadata: { name }, spec: { type: name } };
}

export function seedObject(name: string, provider: string): Record<string, unknown> {
  return {
    metadata: { name },
    spec: {
      provider: { type: provider, region: provider },
      settings: { scheduling: { visible: true } },
      networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
    },
  };
}

export function shootObject(name: string, namespace: string, provider: string): Record<string, unknown> {
  return {
    metadata: { name, namespace },
    spec: {
      cloudProfileName: provider,
      region: provider,
      provider: { type: provider, workers: [{ name: 'pool', machine: { type: 'm' } }] },
    },
  };
}

/** Lines "seed X over allocatable: n > m" for the named seeds, counting every Shoot of the cluster. */
export function overAllocatable(seeds: SeedObject[], shoots: ShootObject[]): string[] {
  const counts = new Map<string, number>();
  for (const s of shoots)
    if (s.spec.seedName) counts.set(s.spec.seedName, (counts.get(s.spec.seedName) ?? 0) + 1);
  return seeds.flatMap((seed) => {
    const n = counts.get(seed.metadata.name) ?? 0;
    const max = allocatableOf(seed);
    return max !== undefined && n > max ? [`seed ${seed.metadata.name} over allocatable: ${n} > ${max}`] : [];
  });
}

/** Creates `names` as Shoots of `provider` in parallel batches. */
export async function createShoots(
  ctx: DrillContext,
  namespace: string,
  names: string[],
  provider: string,
): Promise<void> {
  const limit = pLimit(BATCH);
  await Promise.all(
    names.map((n) => limit(() => createOnce(ctx.main, GVK.Shoot, shootObject(n, namespace, provider)))),
  );
}

/** A shoot's problem at the end, if any. */
export function shootProblem(shoot: ShootObject | undefined, name: string, reconciled: boolean): string[] {
  if (!shoot) return [`shoot ${name} missing`];
  if (!shoot.spec.seedName)
    return [`shoot ${name} not bound: ${shoot.status?.lastOperation?.description ?? 'no message'}`];
  if (reconciled && shoot.status?.lastOperation?.state !== 'Succeeded')
    return [`shoot ${name} bound to ${shoot.spec.seedName} but not reconciled`];
  return [];
}

interface Plan {
  namespace: string;
  provider: string;
  seeds: { name: string; shoots: number }[];
  shoots: string[];
}

function plan(ctx: DrillContext): Plan {
  return {
    namespace: label(ctx.namespace, 'shoots'),
    provider: label(ctx.namespace, 'plain'),
    seeds: seedPlan(ctx.namespace, ctx.scale.shoots),
    shoots: Array.from({ length: ctx.scale.shoots }, (_, i) => `shoot-${String(i).padStart(4, '0')}`),
  };
}

async function ourSeeds(ctx: DrillContext, p: Plan): Promise<SeedObject[]> {
  const names = new Set(p.seeds.map((s) => s.name));
  return (await listAll<SeedObject>(ctx.main, GVK.Seed)).filter((s) => names.has(s.metadata.name));
}

async function start(ctx: DrillContext, p: Plan): Promise<void> {
  await ensureNamespace(ctx.main, p.namespace);
  await createOnce(ctx.main, GVK.CloudProfile, cloudProfile(p.provider));
  for (const s of p.seeds) await createOnce(ctx.main, GVK.Seed, seedObject(s.name, p.provider));
  const ready = await waitFor(async () => {
    const seeds = await ourSeeds(ctx, p);
    return (
      seeds.length === p.seeds.length && seeds.every((s) => seedReady(s) && allocatableOf(s) !== undefined)
    );
  }, SEEDS_READY_MS);
  if (!ready) ctx.log('shoots: seeds not ready with allocatable in time; creating the shoots anyway');
  await createShoots(ctx, p.namespace, p.shoots, p.provider);
  ctx.log('shoots: created', { shoots: p.shoots.length, seeds: p.seeds.length });
}

async function check(ctx: DrillContext, p: Plan): Promise<WorkloadCheck> {
  const reconciled = ctx.landscape.fixtures !== undefined;
  const ours = new Map(
    (await listAll<ShootObject>(ctx.main, GVK.Shoot, p.namespace)).map((s) => [s.metadata.name, s]),
  );
  const lost = [
    ...p.shoots.flatMap((n) => shootProblem(ours.get(n), n, reconciled)),
    ...overAllocatable(await ourSeeds(ctx, p), await listAll<ShootObject>(ctx.main, GVK.Shoot)),
  ];
  return { operations: p.shoots.length, lost };
}

export function shoots(): Workload {
  let p: Plan | undefined;
  const get = (ctx: DrillContext): Plan => (p ??= plan(ctx));
  return {
    name: 'shoots',
    start: (ctx) => start(ctx, get(ctx)),
    async settled(ctx) {
      const reconciled = ctx.landscape.fixtures !== undefined;
      const list = await listAll<ShootObject>(ctx.main, GVK.Shoot, get(ctx).namespace);
      return (
        list.length === get(ctx).shoots.length &&
        list.every((s) => shootProblem(s, s.metadata.name, reconciled).length === 0)
      );
    },
    check: (ctx) => check(ctx, get(ctx)),
  };
}
