/**
 * The scheduler's filter stages 1–8 (specs/seed-management.md "Shoot scheduler decision"; upstream
 * pkg/scheduler/controller/shoot/reconciler.go filterUsableSeeds … filterCandidates), pure. Each
 * stage keeps the seeds that pass it, in list order; a stage that keeps none fails with upstream's
 * message, which counts the seeds the stage was given.
 *
 * Where the product differs:
 * - an absent `spec.settings.scheduling` counts as visible (the API server defaults `visible: true`);
 * - the domain stage needs the shoot's project name; when no Project names the shoot's namespace,
 *   upstream fails the whole decision (Project not found) where this stage only fails a shoot whose
 *   domain lies under a seed default domain;
 * - a seed whose `status.allocatable.shoots` is no quantity fails the capacity check with its own
 *   message (the Go API types cannot hold such a value).
 */
import type { CloudProfile, SeedSelector, Seed, Shoot } from '../../shared/api/core.js';
import { GardenerAnnotations, SeedConditionTypes } from '../../shared/api/core.js';
import { RESOURCE_SHOOTS } from '../../shared/seedmanagement/capacity.js';
import { networksProblem } from './scheduler-networks.js';
import {
  goLabelSelector,
  goQuote,
  labelSelectorAsSelector,
  parseQuantity,
  requirementsMatch,
  isOneOf,
} from '@landscape/apimachinery';

export const FILTER_STAGES = [
  'usable-seeds',
  'cloud-profile-seed-selector',
  'shoot-seed-selector',
  'provider',
  'zones',
  'access-restrictions',
  'domain',
  'emergency-stop',
  'candidates',
] as const;
export type FilterStage = (typeof FILTER_STAGES)[number];
export const isFilterStage: (value: unknown) => value is FilterStage = isOneOf(FILTER_STAGES);

/** Why a seed is not a candidate (stage 8), as upstream words it. */
export const CANDIDATE_MESSAGES = {
  dns: 'seed does not support DNS',
  taints: "shoot does not tolerate the seed's taints",
  capacity: 'seed does not have available capacity for shoots',
  invalidAllocatable: 'seed has an allocatable quantity for shoots that cannot be parsed',
} as const;

export interface FilterContext {
  shoot: Shoot;
  cloudProfile: CloudProfile;
  /** Shoots per seed name (see seedUsage); a seed not listed counts 0. */
  usage: Readonly<Record<string, number>>;
  /** The Project whose `spec.namespace` is the shoot's namespace (the domain stage needs its name). */
  projectName?: string;
}

export type StageResult = { ok: true; seeds: Seed[] } | { ok: false; message: string };
export type Filter = (seeds: readonly Seed[], ctx: FilterContext) => StageResult;

const seedName = (seed: Seed): string => seed.metadata?.name ?? '';

function keep(seeds: readonly Seed[], predicate: (seed: Seed) => boolean, message: string): StageResult {
  const kept = seeds.filter(predicate);
  return kept.length > 0 ? { ok: true, seeds: kept } : { ok: false, message };
}

function conditionTrue(seed: Seed, type: string): boolean {
  return (seed.status?.conditions ?? []).find((c) => c.type === type)?.status === 'True';
}

/** Upstream's isUsableSeed: not deleting, visible, reconciled once, gardenlet (and backup) ready. */
export function isUsableSeed(seed: Seed): boolean {
  if (seed.metadata?.deletionTimestamp) return false;
  if (seed.spec.settings?.scheduling?.visible === false) return false;
  if (!seed.status?.lastOperation) return false;
  if (!conditionTrue(seed, SeedConditionTypes.gardenletReady)) return false;
  return seed.spec.backup == null || conditionTrue(seed, SeedConditionTypes.backupBucketsReady);
}

const usableSeeds: Filter = (seeds) =>
  keep(
    seeds,
    isUsableSeed,
    `none of the ${seeds.length} seeds is valid for scheduling (not deleting, visible and ready)`,
  );

function selectorFilter(selectorOf: (ctx: FilterContext) => SeedSelector | undefined, kind: string): Filter {
  return (seeds, ctx) => {
    const selector = selectorOf(ctx);
    if (!selector) return { ok: true, seeds: [...seeds] };
    const converted = labelSelectorAsSelector(selector);
    if (!converted.ok) {
      const { matchLabels, matchExpressions } = selector;
      return {
        ok: false,
        message: `label selector conversion failed: ${goLabelSelector({ matchLabels, matchExpressions })} for seedSelector: ${converted.message}`,
      };
    }
    return keep(
      seeds,
      (s) => requirementsMatch(converted.requirements, s.metadata?.labels),
      `none out of the ${seeds.length} seeds has the matching labels required by seed selector of '${kind}' (selector: '${converted.text}')`,
    );
  };
}

/** Upstream's matchProvider: no provider types → same type; else listed or `*`. */
export function matchProvider(
  seedType: string,
  shootType: string,
  providerTypes: readonly string[],
): boolean {
  if (providerTypes.length === 0) return seedType === shootType;
  return providerTypes.some((p) => p === '*' || p === seedType);
}

const providers: Filter = (seeds, { shoot, cloudProfile }) =>
  keep(
    seeds,
    (s) =>
      matchProvider(
        s.spec.provider.type,
        shoot.spec.provider.type,
        cloudProfile.spec.seedSelector?.providerTypes ?? [],
      ),
    `none out of the ${seeds.length} seeds has a matching provider for ${goQuote(shoot.spec.provider.type)}`,
  );

/** The shoot asks for a control plane spread over zones. */
export function isMultiZonalShootControlPlane(shoot: Shoot): boolean {
  return shoot.spec.controlPlane?.highAvailability?.failureTolerance?.type === 'zone';
}

const zones: Filter = (seeds, { shoot }) => {
  if (!isMultiZonalShootControlPlane(shoot)) return { ok: true, seeds: [...seeds] };
  return keep(
    seeds,
    (s) => (s.spec.provider.zones ?? []).length >= 3,
    `none of the ${seeds.length} seeds has at least 3 zones for hosting a shoot control plane with failure tolerance type 'zone'`,
  );
};

/** Upstream's AccessRestrictionsAreSupported (including its length shortcut). */
export function accessRestrictionsSupported(seed: Seed, shoot: Shoot): boolean {
  const wanted = shoot.spec.accessRestrictions ?? [];
  const offered = seed.spec.accessRestrictions ?? [];
  if (wanted.length === 0) return true;
  if (wanted.length > offered.length) return false;
  const names = new Set(offered.map((r) => r.name));
  return wanted.every((r) => names.has(r.name));
}

const accessRestrictions: Filter = (seeds, { shoot }) =>
  keep(
    seeds,
    (s) => accessRestrictionsSupported(s, shoot),
    `none of the ${seeds.length} seeds supports the access restrictions configured in the shoot specification`,
  );

/**
 * Upstream's filterSeedsMatchingDomain: a shoot domain under one of the seeds' `spec.dns.defaults`
 * domains is a Gardener-managed domain and must read `<shoot>.<project>.<default domain>`; only the
 * seeds with that default domain stay. A custom domain (under no seed default) keeps every seed.
 */
export function seedsMatchingDomain(seeds: readonly Seed[], ctx: FilterContext): StageResult {
  const domain = ctx.shoot.spec.dns?.domain;
  if (domain === undefined) return { ok: true, seeds: [...seeds] };
  const name = ctx.shoot.metadata?.name ?? '';
  let managed = false;
  const kept = seeds.filter((s) =>
    (s.spec.dns?.defaults ?? []).some((d) => {
      if (!domain.endsWith(`.${d.domain}`)) return false;
      managed = true;
      return ctx.projectName !== undefined && domain === `${name}.${ctx.projectName}.${d.domain}`;
    }),
  );
  if (!managed) return { ok: true, seeds: [...seeds] };
  return kept.length > 0
    ? { ok: true, seeds: kept }
    : {
        ok: false,
        message: `none of the ${seeds.length} seeds support the domain ${goQuote(domain)} configured in the shoot specification`,
      };
}

/** `shoot.gardener.cloud/emergency-stop-reconciliations: "true"` on the seed (upstream filterSeedsWithDisabledShootReconciliations). */
export function isEmergencyStopped(seed: Seed): boolean {
  return seed.metadata?.annotations?.[GardenerAnnotations.emergencyStopReconciliations] === 'true';
}

const emergencyStop: Filter = (seeds) =>
  keep(
    seeds,
    (s) => !isEmergencyStopped(s),
    `none of the ${seeds.length} seeds have enabled shoot reconciliations currently`,
  );

/** Upstream's TaintsAreTolerated (including its length shortcut; the last toleration of a key wins). */
export function taintsTolerated(seed: Seed, shoot: Shoot): boolean {
  const taints = seed.spec.taints ?? [];
  const tolerations = shoot.spec.tolerations ?? [];
  if (taints.length === 0) return true;
  if (taints.length > tolerations.length) return false;
  const tolerated = new Map(tolerations.map((t) => [t.key, t.value ?? '']));
  return taints.every(
    (t) => tolerated.has(t.key) && (t.value === undefined || t.value === tolerated.get(t.key)),
  );
}

/** Why the seed is no candidate (stage 8), or undefined when it is one. */
/**
 * Shoot domains (upstream's ignoreSeedDueToDNSConfiguration, gardener ≤ 1.6x): a seed whose
 * `spec.settings.shootDNS.enabled` is false cannot host a shoot with `spec.dns` unless the
 * shoot's primary DNS provider (the one marked primary, else the first) is `unmanaged`. A seed
 * without the setting supports DNS (upstream's default).
 */
export function seedRefusesShootDns(seed: Seed, shoot: Shoot): boolean {
  const setting = (seed.spec.settings?.['shootDNS'] as { enabled?: boolean } | undefined)?.enabled;
  if (setting !== false || !shoot.spec.dns) return false;
  const providers = (shoot.spec.dns['providers'] ?? []) as { type?: string; primary?: boolean }[];
  const primary = providers.find((p) => p.primary === true) ?? providers[0];
  return primary?.type !== 'unmanaged';
}

export function candidateProblem(seed: Seed, ctx: FilterContext): string | undefined {
  const networks = networksProblem(seed, ctx.shoot);
  if (networks !== undefined) return networks;
  if (seedRefusesShootDns(seed, ctx.shoot)) return CANDIDATE_MESSAGES.dns;
  if (!taintsTolerated(seed, ctx.shoot)) return CANDIDATE_MESSAGES.taints;
  const allocatable = seed.status?.allocatable;
  if (!allocatable || !Object.prototype.hasOwnProperty.call(allocatable, RESOURCE_SHOOTS)) return undefined;
  const parsed = parseQuantity(allocatable[RESOURCE_SHOOTS]);
  if (!parsed.ok) return CANDIDATE_MESSAGES.invalidAllocatable;
  return (ctx.usage[seedName(seed)] ?? 0) >= parsed.value ? CANDIDATE_MESSAGES.capacity : undefined;
}

const candidates: Filter = (seeds, ctx) => {
  const problems = new Map<string, string>();
  const kept = seeds.filter((s) => {
    const problem = candidateProblem(s, ctx);
    if (problem !== undefined) problems.set(seedName(s), problem);
    return problem === undefined;
  });
  if (kept.length > 0) return { ok: true, seeds: kept };
  const listed = [...problems.keys()]
    .sort()
    .map((name) => `${name} => ${problems.get(name)}`)
    .join(', ');
  return {
    ok: false,
    message: `0/${seeds.length} seed cluster candidate(s) are eligible for scheduling: {${listed}}`,
  };
};

/** Stages 1–8 in upstream's order. */
export const FILTERS: readonly (readonly [FilterStage, Filter])[] = [
  ['usable-seeds', usableSeeds],
  [
    'cloud-profile-seed-selector',
    selectorFilter((ctx) => ctx.cloudProfile.spec.seedSelector, 'CloudProfile'),
  ],
  ['shoot-seed-selector', selectorFilter((ctx) => ctx.shoot.spec.seedSelector, 'Shoot')],
  ['provider', providers],
  ['zones', zones],
  ['access-restrictions', accessRestrictions],
  ['domain', seedsMatchingDomain],
  ['emergency-stop', emergencyStop],
  ['candidates', candidates],
];

/** Runs the stages in order: the seeds left after stage 8, or the first stage that left none. */
export function applyFilters(
  seeds: readonly Seed[],
  ctx: FilterContext,
): { ok: true; seeds: Seed[] } | { ok: false; stage: FilterStage; message: string } {
  let current: Seed[] = [...seeds];
  for (const [stage, filter] of FILTERS) {
    const result = filter(current, ctx);
    if (!result.ok) return { ok: false, stage, message: result.message };
    current = result.seeds;
  }
  return { ok: true, seeds: current };
}
