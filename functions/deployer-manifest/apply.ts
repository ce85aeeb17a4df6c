/**
 * Validate-then-apply (the I/O shell around plan.ts).
 *
 * 1. Resolve every manifest's kind on the target cluster (or from a CRD in the list); a namespaced
 *    object without a namespace is a problem; a kind the cluster does not know (yet) is "not yet"
 *    (upstream's apiResourceHandler: `GetApiResource`, recoverable, nothing written).
 * 2. Read each object and plan its action (plan.ts).
 * 3. Dry-run every planned write on the server (`dryRun=All`), all of them, so every invalid
 *    manifest is named at once. Skipped (not applicable) for objects of kinds only a CRD in the
 *    same list defines; a create whose namespace does not exist (yet) is no problem here: the
 *    apply meets it.
 * 4. Only when nothing was found: apply, group by group (CRDs, cluster-scoped, namespaced) with a
 *    checkpoint before each group, up to `concurrency` writes at a time inside a group.
 * Any problem in 1-3 ends the step with one DeployerError listing all of them; nothing is written.
 * In 4 every group is applied (as upstream) and the failed writes are returned: a create into a
 * namespace that does not exist yet is `pending` (upstream's `unable to create resource ...`);
 * what was written is managed and the retried step finds it.
 */
import pLimit from 'p-limit';
import type { GroupVersionKind } from '../../shared/api/gvk.js';
import { isNotFound, statusCode, type KubeClient } from '../../shared/kube/index.js';
import type { KindResolver, ResolvedKind } from './discovery.js';
import {
  apiErrorMessage,
  classifyApiError,
  notYetError,
  problemsError,
  requestError,
  type Problem,
  type WriteVerb,
} from './errors.js';
import {
  APPLY_GROUPS,
  applyGroupOf,
  isManagedAfter,
  managedEntry,
  planApply,
  refOf,
  type ApplyAction,
  type ApplyGroup,
} from './plan.js';
import {
  manifestLabel,
  manifestShapeProblems,
  type ManifestEntry,
  type UpdateStrategy,
} from './provider-config.js';
import { compareManaged, refKey, type ManagedResource, type ResourceRef } from './provider-status.js';
import type { JsonObject } from '@landscape/apimachinery';

export const APPLY_OPERATION = 'ApplyObjects';

export interface ApplyContext {
  client: KubeClient;
  resolver: KindResolver;
  itemName: string;
  strategy: UpdateStrategy;
  serverDryRun: boolean;
  concurrency: number;
  checkpoint(name: string): void;
}

interface Resolved {
  entry: ManifestEntry;
  label: string;
  ref: ResourceRef;
  kind: ResolvedKind;
}

interface Planned extends Resolved {
  group: ApplyGroup;
  action: ApplyAction;
}

export interface ValidatedPlan {
  planned: Planned[];
  /** Identities of every object the list names (any policy), for the dropped-object cleanup. */
  listed: Set<string>;
}

/** Upstream's GroupVersionKind.String(): `group/version, Kind=kind`. */
export function gvkString(apiVersion: string, kind: string): string {
  return `${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${kind}`;
}

/** A kind the cluster does not serve (yet): upstream's apiResourceHandler error, recoverable. */
async function unknownKind(ctx: ApplyContext, apiVersion: string, kind: string): Promise<Problem> {
  if (await ctx.resolver.groupVersionServed(apiVersion))
    return {
      kind: 'pending',
      reason: 'GetApiResource',
      message: `unable to get apiresource for ${gvkString(apiVersion, kind)}`,
    };
  return {
    kind: 'pending',
    reason: 'GetApiResourceList',
    message: `unable to get api resources for ${apiVersion}: the server could not find the requested resource`,
  };
}

async function resolveEntry(ctx: ApplyContext, entry: ManifestEntry): Promise<Resolved | Problem> {
  const label = manifestLabel(entry.index, entry.object);
  const { apiVersion, kind: k, metadata } = entry.object;
  const kind = await ctx.resolver.resolve(apiVersion, k);
  if (!kind) return unknownKind(ctx, apiVersion, k);
  if (kind.gvk.namespaced && !metadata.namespace)
    return { kind: 'invalid', message: `${label}: ${k} is namespaced: metadata.namespace is required` };
  return { entry, label, ref: refOf(entry.object, kind.gvk.namespaced), kind };
}

/** The identity of an ignored manifest (it still counts as listed); undefined when it has none. */
async function ignoredIdentity(ctx: ApplyContext, entry: ManifestEntry): Promise<string | undefined> {
  if (manifestShapeProblems(entry.object).length > 0) return undefined;
  const kind = await ctx.resolver.resolve(entry.object.apiVersion, entry.object.kind);
  return refKey(refOf(entry.object, kind?.gvk.namespaced ?? entry.object.metadata.namespace !== undefined));
}

function isProblem(x: Resolved | Problem): x is Problem {
  return 'message' in x;
}

async function readCurrent(
  client: KubeClient,
  gvk: GroupVersionKind,
  ref: ResourceRef,
): Promise<JsonObject | undefined> {
  try {
    return await client.get<JsonObject>(gvk, ref.namespace, ref.name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw requestError(APPLY_OPERATION, 'GetObject', `reading ${ref.kind} ${ref.name}`, err);
  }
}

async function planEntry(ctx: ApplyContext, r: Resolved): Promise<Planned> {
  const { gvk, served } = r.kind;
  const current = served ? await readCurrent(ctx.client, gvk, r.ref) : undefined;
  const action = planApply({
    entry: r.entry,
    namespaced: gvk.namespaced,
    strategy: ctx.strategy,
    itemName: ctx.itemName,
    ...(current ? { current } : {}),
  });
  return { ...r, group: applyGroupOf(gvk.apiVersion, gvk.kind, gvk.namespaced), action };
}

/** The write of an action (dry run or real); undefined for a skip. */
function write(client: KubeClient, p: Planned, dryRun: boolean): Promise<unknown> | undefined {
  const { gvk } = p.kind;
  const ref = { name: p.ref.name, ...(p.ref.namespace ? { namespace: p.ref.namespace } : {}) };
  switch (p.action.op) {
    case 'create':
      return client.create(gvk, p.action.body, { dryRun });
    case 'update':
      return client.replace(gvk, p.action.body, { dryRun });
    case 'patch':
      return client.mergePatch(gvk, ref, p.action.patch, { dryRun });
    default:
      return undefined;
  }
}

function verbOf(action: ApplyAction): WriteVerb {
  return action.op === 'skip' ? 'get' : action.op;
}

/** The dry run of one write; a create that meets a missing namespace is left to the apply. */
async function dryRunOne(ctx: ApplyContext, p: Planned): Promise<Problem | undefined> {
  if (!p.kind.served) return undefined;
  try {
    await write(ctx.client, p, true);
    return undefined;
  } catch (err) {
    const kind = classifyApiError(err, verbOf(p.action));
    return kind === 'pending' ? undefined : { kind, message: `${p.label}: ${apiErrorMessage(err)}` };
  }
}

const INVALID_LEAD = 'invalid manifests, nothing applied';

/** Steps 1-3: the plan, or a DeployerError listing every problem found. */
export async function validateAndPlan(
  ctx: ApplyContext,
  entries: readonly ManifestEntry[],
): Promise<ValidatedPlan> {
  const limit = pLimit(ctx.concurrency);
  const ignored = entries.filter((e) => e.policy === 'ignore');
  const applied = entries.filter((e) => e.policy !== 'ignore');
  const resolved = await Promise.all(applied.map((e) => limit(() => resolveEntry(ctx, e))));
  const problems: Problem[] = resolved.filter(isProblem).filter((p) => p.kind !== 'pending');
  const unknownKinds = resolved.filter(isProblem).filter((p) => p.kind === 'pending');
  const ok = resolved.filter((r): r is Resolved => !isProblem(r));
  const ignoredKeys = await Promise.all(ignored.map((e) => limit(() => ignoredIdentity(ctx, e))));
  const listed = new Set([...ok.map((r) => refKey(r.ref)), ...ignoredKeys.filter((k): k is string => !!k)]);
  const planned = await Promise.all(ok.map((r) => limit(() => planEntry(ctx, r))));
  if (ctx.serverDryRun) {
    const found = await Promise.all(planned.map((p) => limit(() => dryRunOne(ctx, p))));
    problems.push(...found.filter((p): p is Problem => p !== undefined));
  }
  if (problems.length > 0) throw problemsError(APPLY_OPERATION, 'ValidateManifests', INVALID_LEAD, problems);
  if (unknownKinds.length > 0)
    throw notYetError('GetApiResource', unknownKinds[0].reason ?? 'GetApiResource', unknownKinds);
  return { planned, listed };
}

/** Upstream's `types.NamespacedName.String()`. */
function keyOf(ref: ResourceRef): string {
  return `${ref.namespace ?? ''}/${ref.name}`;
}

/**
 * How a failed write counts. An object of a kind only a CRD of this list defined may meet a
 * CRD that is not established yet (404), a create a namespace that does not exist yet: pending,
 * with upstream's message; the step is retried.
 */
function applyProblem(p: Planned, err: unknown): Problem {
  const kind =
    !p.kind.served && statusCode(err) === 404 ? 'pending' : classifyApiError(err, verbOf(p.action));
  if (kind !== 'pending') return { kind, message: `${p.label}: ${apiErrorMessage(err)}` };
  return { kind, message: `unable to create resource ${keyOf(p.ref)}: ${apiErrorMessage(err)}` };
}

async function applyOne(ctx: ApplyContext, p: Planned): Promise<Problem | undefined> {
  try {
    await write(ctx.client, p, false);
    return undefined;
  } catch (err) {
    return applyProblem(p, err);
  }
}

export interface Applied {
  /** The managed resources written (or kept), upstream order. */
  managed: ManagedResource[];
  /** The writes that failed. */
  failed: Problem[];
}

/** Step 4: applies the plan group by group (every group, as upstream). */
export async function applyPlan(ctx: ApplyContext, plan: ValidatedPlan): Promise<Applied> {
  const limit = pLimit(ctx.concurrency);
  const out: Applied = { managed: [], failed: [] };
  for (const group of APPLY_GROUPS) {
    const batch = plan.planned.filter((p) => p.group === group);
    if (batch.length === 0) continue;
    ctx.checkpoint('deployer: apply manifests');
    const results = await Promise.all(batch.map((p) => limit(() => applyOne(ctx, p))));
    out.failed.push(...results.filter((x): x is Problem => x !== undefined));
    out.managed.push(
      ...batch
        .filter((p, i) => results[i] === undefined && isManagedAfter(p.action))
        .map((p) => managedEntry(p.entry, p.ref))
        .sort(compareManaged),
    );
  }
  return out;
}

/** The error of failed writes: a configuration/authorization problem, else "not yet". */
export function applyFailure(failed: readonly Problem[], providerStatus: Record<string, unknown>): Error {
  if (failed.some((p) => p.kind === 'invalid' || p.kind === 'unauthorized'))
    return problemsError(APPLY_OPERATION, 'ApplyNewObject', 'applying manifests failed', failed);
  return notYetError(APPLY_OPERATION, 'ApplyNewObject', failed, providerStatus);
}
